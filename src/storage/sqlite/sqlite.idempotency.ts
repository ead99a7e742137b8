import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { IDEMPOTENCY_COLUMNS, isDeadClaim, toIdempotencyRecord, type IdempotencyRow } from '../rows.ts';
import type { IdempotencyId, IdempotencyRecord, IdempotencyRepository } from '../storage.ts';
import { transaction } from './sqlite.tx.ts';

export class SqliteIdempotency implements IdempotencyRepository {
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  readonly #put: StatementSync;
  readonly #release: StatementSync;
  readonly #purge: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    const id = 'subject = ? AND operation = ? AND key = ?';
    this.#get = db.prepare(`SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency_keys WHERE ${id}`);
    this.#put = db.prepare(
      'INSERT OR REPLACE INTO idempotency_keys (subject, operation, key, fingerprint, status, body, location, created_at) VALUES (?, ?, ?, ?, NULL, NULL, NULL, ?)',
    );
    this.#release = db.prepare(`DELETE FROM idempotency_keys WHERE ${id} AND status IS NULL`);
    this.#purge = db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?');
  }

  async claim(id: IdempotencyId, fingerprint: string, now: Date, expiredBefore: Date, abandonedBefore: Date): Promise<IdempotencyRecord | undefined> {
    // BEGIN IMMEDIATE: read-then-write is atomic across processes sharing the file.
    return transaction(this.#db, () => {
      const row = this.#get.get(id.subject, id.operation, id.key) as IdempotencyRow | undefined;
      if (row && !isDeadClaim(row, expiredBefore, abandonedBefore)) return toIdempotencyRecord(row);
      this.#put.run(id.subject, id.operation, id.key, fingerprint, now.getTime());
      return undefined;
    });
  }

  async release(id: IdempotencyId): Promise<void> {
    this.#release.run(id.subject, id.operation, id.key);
  }

  async purge(before: Date): Promise<number> {
    return Number(this.#purge.run(before.getTime()).changes);
  }
}
