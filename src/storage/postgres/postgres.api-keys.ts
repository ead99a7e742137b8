import type { ApiKey } from '../../keys/key.schemas.ts';
import type { StoredPrincipal } from '../../keys/key.types.ts';
import { KEY_COLUMNS as COLUMNS, toApiKey, toStoredPrincipal, type KeyRow, type PrincipalRow } from '../rows.ts';
import type { ApiKeyCreate, ApiKeyRepository, ApiKeyTx, KeyQuery } from '../storage.ts';
import { BatchedLookup } from './postgres.batch.ts';
import type { PgDb, Query } from './postgres.db.ts';

export class PostgresApiKeys implements ApiKeyRepository {
  readonly #db: PgDb;
  readonly #active: BatchedLookup<string, StoredPrincipal>;

  constructor(db: PgDb) {
    this.#db = db;
    this.#active = new BatchedLookup<string, StoredPrincipal>(async (hashes) => {
      const rows = await db.query<PrincipalRow & { hash: string }>(
        'SELECT id, hash, scopes, expires_at FROM api_keys WHERE hash = ANY($1) AND revoked_at IS NULL',
        [hashes],
      );
      return new Map(rows.map((r) => [r.hash, toStoredPrincipal(r)]));
    });
  }

  findActiveByHash(hash: string): Promise<StoredPrincipal | undefined> {
    // Read for every request, never cached: a revocation committed by any instance (or the CLI)
    // is visible to every instance's next request. The requests of one loop turn share a query.
    // Expiry is compared with the clock by KeyVerifier.
    return this.#active.get(hash);
  }

  async list(q: KeyQuery): Promise<ApiKey[]> {
    return (await this.#db.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id > $1 ORDER BY id LIMIT $2`, [q.afterId, q.limit])).map(toApiKey);
  }

  async get(id: number): Promise<ApiKey | undefined> {
    const [row] = await this.#db.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return row && toApiKey(row);
  }

  async count(): Promise<number> {
    const [row] = await this.#db.query<{ n: number }>('SELECT count(*) AS n FROM api_keys');
    return row.n;
  }
}

export class PostgresApiKeyTx implements ApiKeyTx {
  readonly #query: Query;

  constructor(query: Query) {
    this.#query = query;
  }

  async insert(input: ApiKeyCreate, at: Date): Promise<ApiKey> {
    const [row] = await this.#query<KeyRow>(
      `INSERT INTO api_keys (name, prefix, hash, scopes, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [input.name, input.prefix, input.hash, input.scopes.join(' '), at.toISOString(), input.expiresAt?.toISOString() ?? null],
    );
    return toApiKey(row);
  }

  async lock(id: number): Promise<ApiKey | undefined> {
    // Two concurrent revocations of one key: the second waits here, then reads it revoked.
    const [row] = await this.#query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 FOR NO KEY UPDATE`, [id]);
    return row && toApiKey(row);
  }

  async revoke(id: number, at: Date): Promise<void> {
    await this.#query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1', [id, at.toISOString()]);
  }
}
