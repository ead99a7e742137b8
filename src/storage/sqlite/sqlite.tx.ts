import type { DatabaseSync } from 'node:sqlite';

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
