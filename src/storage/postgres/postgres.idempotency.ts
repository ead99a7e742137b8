import { IDEMPOTENCY_COLUMNS, toIdempotencyRecord, type IdempotencyRow } from '../rows.ts';
import type { IdempotencyId, IdempotencyRecord, IdempotencyRepository, IdempotencyTx, StoredResponse } from '../storage.ts';
import type { PgDb, Query } from './postgres.db.ts';

const ID = 'subject = $1 AND operation = $2 AND key = $3';

export class PostgresIdempotency implements IdempotencyRepository {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  async claim(id: IdempotencyId, fingerprint: string, now: Date, expiredBefore: Date, abandonedBefore: Date): Promise<IdempotencyRecord | undefined> {
    const ids = [id.subject, id.operation, id.key];
    // Insert, or take over a dead record, in one statement: a concurrent claim of the same key
    // waits on the row lock and then sees the winner's live row, so only one of them gets RETURNING.
    // A live row is read by a second statement, whose snapshot includes the concurrent commit; if it
    // vanished in between (released or purged), claim again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await this.#db.query(
        `INSERT INTO idempotency_keys AS k (subject, operation, key, fingerprint, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (subject, operation, key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, status = NULL, body = NULL, location = NULL, created_at = EXCLUDED.created_at
           WHERE k.created_at < $6 OR (k.status IS NULL AND k.created_at < $7)
         RETURNING 1`,
        [...ids, fingerprint, now.getTime(), expiredBefore.getTime(), abandonedBefore.getTime()],
      );
      if (claimed.length === 1) return undefined;
      const [row] = await this.#db.query<IdempotencyRow>(`SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency_keys WHERE ${ID}`, ids);
      if (row) return toIdempotencyRecord(row);
    }
    throw new Error(`idempotency key ${id.key} kept changing while being claimed`);
  }

  async release(id: IdempotencyId): Promise<void> {
    await this.#db.query(`DELETE FROM idempotency_keys WHERE ${ID} AND status IS NULL`, [id.subject, id.operation, id.key]);
  }

  async purge(before: Date): Promise<number> {
    const [row] = await this.#db.query<{ n: number }>(
      'WITH gone AS (DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone',
      [before.getTime()],
    );
    return row.n;
  }
}

export class PostgresIdempotencyTx implements IdempotencyTx {
  readonly #query: Query;

  constructor(query: Query) {
    this.#query = query;
  }

  async complete(id: IdempotencyId, r: StoredResponse): Promise<boolean> {
    const sql = `UPDATE idempotency_keys SET status = $4, body = $5, location = $6 WHERE ${ID} AND status IS NULL RETURNING 1`;
    return (await this.#query(sql, [id.subject, id.operation, id.key, r.status, r.body, r.location])).length === 1;
  }
}
