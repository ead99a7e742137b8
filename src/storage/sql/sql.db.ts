import type { NewEvent } from '../storage.ts';

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

/** The first row of one statement, if any. */
export async function first<R>(db: SqlDb, sql: string, params?: readonly SqlParam[]): Promise<R | undefined> {
  return (await db.all<R>(sql, params))[0];
}

/** A PostgreSQL row lock, as the clause that ends a SELECT. */
export type RowLock = 'FOR UPDATE' | 'FOR NO KEY UPDATE' | 'FOR KEY SHARE' | 'FOR UPDATE SKIP LOCKED' | 'FOR NO KEY UPDATE OF w SKIP LOCKED';

/** What the engines say differently. */
export interface Dialect {
  /**
   * The clause that takes `lock` on the rows a SELECT reads. PostgreSQL: the clause. SQLite: none,
   * since a write transaction holds the whole database (and there is no reader to skip).
   */
  lock(lock: RowLock): string;
  /** A FROM item `alias(item, n)`: the items of the list parameter `param` (as text), with their positions from 1. */
  items(param: string, alias: string): string;
  /**
   * EventTx.publish: the events, their ids in commit order (SQLite has one writer at a time;
   * PostgreSQL serialises event writers), and the first attempts they owe (SUBSCRIBED).
   */
  publish(db: SqlDb, events: readonly NewEvent[], at: Date): Promise<void>;
  /**
   * Runs `sql`, a write that may give a live category a name another live one has (the unique
   * index categories_name_live): its rows, or undefined when the index refused it — that statement
   * undone, the transaction still usable.
   */
  unlessNameTaken<R>(db: SqlDb, sql: string, params: readonly SqlParam[]): Promise<R[] | undefined>;
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
