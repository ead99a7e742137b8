import type { DatabaseSync } from 'node:sqlite';
import { IDEMPOTENCY_COLUMNS, isDeadClaim, toIdempotencyRecord, type IdempotencyRow } from '../rows.ts';
import type { IdempotencyId, IdempotencyRecord, IdempotencyRepository, IdempotencyTx, StoredResponse } from '../storage.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import { transaction, type Sql } from './sqlite.tx.ts';

const ID = 'subject = ? AND operation = ? AND key = ?';
const COMPLETE = `UPDATE idempotency_keys SET status = ?, body = ?, location = ? WHERE ${ID} AND status IS NULL`;

export class SqliteIdempotency implements IdempotencyRepository {
  readonly #db: DatabaseSync;
  readonly #writes: GroupCommit;
  readonly #sql: Sql;

  constructor(db: DatabaseSync, sql: Sql, writes: GroupCommit) {
    this.#db = db;
    this.#writes = writes;
    this.#sql = sql;
  }

  claim(id: IdempotencyId, fingerprint: string, now: Date, expiredBefore: Date, abandonedBefore: Date): Promise<IdempotencyRecord | undefined> {
    // Its own BEGIN IMMEDIATE, between batches: read-then-write is atomic across processes sharing the file.
    return this.#writes.outside(() =>
      transaction(this.#db, () => {
        const row = this.#sql.get<IdempotencyRow>(`SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency_keys WHERE ${ID}`, id.subject, id.operation, id.key);
        if (row && !isDeadClaim(row, expiredBefore, abandonedBefore)) return toIdempotencyRecord(row);
        this.#sql.run(
          'INSERT OR REPLACE INTO idempotency_keys (subject, operation, key, fingerprint, status, body, location, created_at) VALUES (?, ?, ?, ?, NULL, NULL, NULL, ?)',
          id.subject,
          id.operation,
          id.key,
          fingerprint,
          now.getTime(),
        );
        return undefined;
      }),
    );
  }

  async release(id: IdempotencyId): Promise<void> {
    await this.#writes.outside(() => this.#sql.run(`DELETE FROM idempotency_keys WHERE ${ID} AND status IS NULL`, id.subject, id.operation, id.key));
  }

  purge(before: Date): Promise<number> {
    return this.#writes.outside(() => this.#sql.run('DELETE FROM idempotency_keys WHERE created_at < ?', before.getTime()));
  }
}

export class SqliteIdempotencyTx implements IdempotencyTx {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async complete(id: IdempotencyId, r: StoredResponse): Promise<boolean> {
    return this.#sql.run(COMPLETE, r.status, r.body, r.location, id.subject, id.operation, id.key) === 1;
  }
}
