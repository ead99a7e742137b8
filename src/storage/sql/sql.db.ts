/** A statement's parameter: dates go in as ISO strings; an array is a list parameter (Dialect.items); bytes are a BLOB / bytea. */
export type SqlParam = string | number | boolean | null | readonly string[] | readonly number[] | Uint8Array;

/**
 * How the repositories of this folder talk to an engine: one statement at a time, with
 * PostgreSQL's `$1`…`$n` parameters, in the SQL both engines speak (the rest is the Dialect's).
 * Each engine gives two: one inside a workflow's transaction, one for reads outside any.
 */
export interface SqlDb {
  /** The rows of one statement (of a write: its RETURNING rows). */
  all<R>(sql: string, params?: readonly SqlParam[]): Promise<R[]>;
  /** Runs one statement; returns how many rows it changed. */
  run(sql: string, params?: readonly SqlParam[]): Promise<number>;
}

/** Only live rows are read: a withdrawn pet or a deleted category (deleted_at set) is absent everywhere. */
export const LIVE = 'deleted_at IS NULL';

/** The first row of one statement, if any. */
export async function first<R>(db: SqlDb, sql: string, params?: readonly SqlParam[]): Promise<R | undefined> {
  return (await db.all<R>(sql, params))[0];
}

/** A PostgreSQL row lock, as the clause that ends a SELECT. */
export type RowLock = 'FOR UPDATE' | 'FOR NO KEY UPDATE' | 'FOR KEY SHARE' | 'FOR UPDATE SKIP LOCKED' | 'FOR NO KEY UPDATE OF w SKIP LOCKED';

/**
 * What the engines say differently: fragments of SQL and capabilities, no statement run (kysely's
 * Dialect / DialectAdapter). The statements are written once, in this folder, over these.
 */
export interface Dialect {
  /**
   * The clause that takes `lock` on the rows a SELECT reads. PostgreSQL: the clause. SQLite: none,
   * since a write transaction holds the whole database (and there is no reader to skip).
   */
  lock(lock: RowLock): string;
  /** A FROM item `alias(item, n)`: the items of the list parameter `param` (as text), with their positions from 1. */
  items(param: string, alias: string): string;
  /** The right side of a condition true when the left one equals an item of the list parameter `param`, its items as `type`. */
  anyOf(param: string, type: 'BIGINT' | 'TEXT'): string;
  /**
   * Whether a WITH may hold an INSERT (PostgreSQL's data-modifying CTE; not SQLite): EventTx.publish
   * then writes a write's events and their first attempts in one statement.
   */
  readonly dataModifyingCte: boolean;
  /**
   * A condition true when the transaction `xid` (events.xid, webhook_deliveries.xid) is older than
   * every transaction still running: it has committed or rolled back, and no transaction that
   * commits later can have a smaller xid. PostgreSQL: below pg_snapshot_xmin. SQLite: always
   * (one writer at a time, and a reader never sees a batch before it commits).
   */
  settled(xid: string): string;
  /**
   * A condition true when the instance numbered by `instance` (an in-flight claim's, a lease's) is
   * alive. PostgreSQL: it holds its session-level advisory lock (postgres.instance.ts). SQLite:
   * always; the claims of a process that died are released when the next one starts.
   */
  alive(instance: string): string;
  /**
   * Whether a failed statement aborts the whole transaction (PostgreSQL): a statement that may fail
   * on purpose (a category name already taken) then runs inside a savepoint.
   */
  readonly failedStatementAbortsTransaction: boolean;
  /** Whether `err` is the refusal of a unique index. */
  isUniqueViolation(err: unknown): boolean;
  /**
   * A statement that makes the transactions running it with the same `$1` take turns from there to
   * COMMIT. PostgreSQL: a transaction-scoped advisory lock. SQLite: none (one writer holds the database).
   */
  readonly takeTurns: string | undefined;
  /** The search query of `words` (folded words of letters and digits, pets/pet.search.ts), each a word or the start of one. */
  searchTerms(words: readonly string[]): string;
  /**
   * The live pets matching the search query `param`, from the search index, in id order: the FROM
   * items (the pets aliased `p`), their condition, and the id expression to order and page by.
   * `sparse`: the caller found the words rare (PostgresPets samples them), so the matches are
   * collected from the index first and then ordered.
   */
  searchPets(param: string, sparse: boolean): { readonly from: string; readonly where: string; readonly id: string };
  /** A SELECT of the ids (`pet_id`) of the live pets matching the search query `param`, read from the search index alone. */
  searchIds(param: string): string;
  /**
   * Whether counting a search's matches reads all of them (PostgreSQL: a GIN index is read as a
   * bitmap of every match before a LIMIT can stop it), so that a search is sampled first
   * (searchSampleStatement) and a common one walked without counting. FTS5 streams its matches.
   */
  readonly countReadsEveryMatch: boolean;
}

/** A statement whose text depends on the dialect, built once per dialect (not per call). */
export function perDialect(build: (d: Dialect) => string): (d: Dialect) => string {
  const built = new WeakMap<Dialect, string>();
  return (d) => {
    let sql = built.get(d);
    if (sql === undefined) {
      sql = build(d);
      built.set(d, sql);
    }
    return sql;
  };
}

/**
 * Runs `sql`, a write a unique index may refuse (a category's name another live one has, a second
 * live hold of a pet): its rows, or undefined when the index refused it — that statement undone,
 * the transaction still usable (in a savepoint where a failed statement would abort it).
 */
export async function unlessUnique<R>(db: SqlDb, d: Dialect, sql: string, params: readonly SqlParam[]): Promise<R[] | undefined> {
  const savepoint = d.failedStatementAbortsTransaction;
  if (savepoint) await db.run('SAVEPOINT unique_write');
  try {
    const rows = await db.all<R>(sql, params);
    if (savepoint) await db.run('RELEASE SAVEPOINT unique_write');
    return rows;
  } catch (err) {
    if (!d.isUniqueViolation(err)) throw err;
    if (savepoint) await db.run('ROLLBACK TO SAVEPOINT unique_write');
    return undefined;
  }
}
