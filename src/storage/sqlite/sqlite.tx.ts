import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';

/**
 * Runs fn inside BEGIN IMMEDIATE … COMMIT. node:sqlite is synchronous, so nothing else in this
 * process interleaves; IMMEDIATE takes the write lock up front so other processes on the same
 * file wait (busy_timeout) instead of failing half-way with SQLITE_BUSY on upgrade.
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

export function isConstraint(err: unknown, kind: 'FOREIGN KEY' | 'UNIQUE'): boolean {
  return err instanceof Error && (err as { code?: string }).code === 'ERR_SQLITE_ERROR' && err.message.includes(`${kind} constraint failed`);
}

type Params = readonly SQLInputValue[] | [Record<string, SQLInputValue>];

/** Statements by their SQL text, each prepared on first use: the repositories name their SQL where they use it. */
export class Sql {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  #prepare(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** The first row, or undefined. */
  get<R>(sql: string, ...params: Params): R | undefined {
    return this.#prepare(sql).get(...(params as SQLInputValue[])) as R | undefined;
  }

  all<R>(sql: string, ...params: Params): R[] {
    return this.#prepare(sql).all(...(params as SQLInputValue[])) as R[];
  }

  /** Runs a statement; returns how many rows it changed. */
  run(sql: string, ...params: Params): number {
    return Number(this.#prepare(sql).run(...(params as SQLInputValue[])).changes);
  }
}
