import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { Dialect, SqlDb, SqlParam } from '../sql/sql.db.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';

/**
 * Runs fn inside BEGIN IMMEDIATE … COMMIT (migrations). node:sqlite is synchronous, so nothing else
 * in this process interleaves; IMMEDIATE takes the write lock up front so other processes on the
 * same file wait (busy_timeout) instead of failing half-way with SQLITE_BUSY on upgrade.
 */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw err;
  }
}

/** A statement of storage/sql/ prepared on this connection: its `$n` parameters are SQLite's `?n`. */
export function prepare(db: DatabaseSync, sql: string): StatementSync {
  return db.prepare(sql.replaceAll(/\$(\d+)/g, '?$1'));
}

/** The statements of the connection, each prepared on first use; `$n` parameters are SQLite's `?n`. */
export class SqliteStatements {
  readonly #db: DatabaseSync;
  readonly #prepared = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  all<R>(sql: string, params: readonly SqlParam[] = []): R[] {
    return this.#prepare(sql).all(...params.map(bind)) as R[];
  }

  run(sql: string, params: readonly SqlParam[] = []): number {
    return Number(this.#prepare(sql).run(...params.map(bind)).changes);
  }

  #prepare(sql: string): StatementSync {
    let statement = this.#prepared.get(sql);
    if (statement === undefined) {
      statement = prepare(this.#db, sql);
      this.#prepared.set(sql, statement);
    }
    return statement;
  }
}

// Booleans are 0/1; a list goes in as JSON, read by json_each (sqliteDialect.items).
const bind = (p: SqlParam): SQLInputValue => (typeof p === 'boolean' ? Number(p) : Array.isArray(p) ? JSON.stringify(p) : (p as SQLInputValue));

/**
 * The statements as the shared repositories use them. Inside a workflow they run in its batch's
 * transaction; outside one (`gate`), once no batch is open, so that they see committed rows only
 * and a write of theirs commits by itself (GroupCommit.outside).
 */
export function sqliteDb(statements: SqliteStatements, gate?: GroupCommit): SqlDb {
  if (gate === undefined) return { all: async (sql, params) => statements.all(sql, params), run: async (sql, params) => statements.run(sql, params) };
  return { all: (sql, params) => gate.outside(() => statements.all(sql, params)), run: (sql, params) => gate.outside(() => statements.run(sql, params)) };
}

export const sqliteDialect: Dialect = {
  // BEGIN IMMEDIATE holds the database's write lock for the whole batch: every read in it is a lock.
  lock: () => '',
  items: (param, alias) => `(SELECT value AS item, key + 1 AS n FROM json_each(${param})) AS ${alias}`,
  anyOf: (param) => `IN (SELECT value FROM json_each(${param}))`,
  // No INSERT in a WITH: EventTx.publish takes two statements per event.
  dataModifyingCte: false,
  settled: () => 'TRUE',
  alive: () => 'TRUE',
  // FTS5: every quoted word as a prefix ("lab"* matches labrador), all of them required.
  searchTerms: (words) => words.map((w) => `"${w}"*`).join(' AND '),
  // The FTS5 table is the outer loop (CROSS JOIN keeps it there): it yields matches in rowid order,
  // with the rowid range of a keyset page applied inside the index.
  // FTS5 yields its matches in rowid order however many there are: `sparse` changes nothing.
  searchPets: (param) => ({ from: 'pets_fts f CROSS JOIN pets p', where: `pets_fts MATCH ${param} AND p.id = f.rowid`, id: 'f.rowid' }),
  // The FTS5 table holds live pets only (its triggers, migration 9).
  searchIds: (param) => `SELECT rowid AS pet_id FROM pets_fts WHERE pets_fts MATCH ${param}`,
  countReadsEveryMatch: false,
  // A failed statement is undone by SQLite alone; the transaction goes on.
  failedStatementAbortsTransaction: false,
  isUniqueViolation,
  takeTurns: undefined,
};

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && (err as { code?: string }).code === 'ERR_SQLITE_ERROR' && err.message.includes('UNIQUE constraint failed');
}
