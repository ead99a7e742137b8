import type { ApiKeyInfo, Principal } from '../../keys/key.types.ts';
import { KEY_COLUMNS as COLUMNS, parseScopes, toKeyInfo, type KeyRow } from '../rows.ts';
import type { ApiKeyCreate, ApiKeyRepository } from '../storage.ts';
import { BatchedLookup } from './postgres.batch.ts';
import type { PgDb } from './postgres.db.ts';

export class PostgresApiKeys implements ApiKeyRepository {
  readonly #db: PgDb;
  readonly #active: BatchedLookup<string, Principal>;

  constructor(db: PgDb) {
    this.#db = db;
    this.#active = new BatchedLookup<string, Principal>(async (hashes) => {
      const rows = await db.query<{ id: number; hash: string; scopes: string }>('SELECT id, hash, scopes FROM api_keys WHERE hash = ANY($1) AND revoked_at IS NULL', [hashes]);
      return new Map(rows.map((r) => [r.hash, Object.freeze({ keyId: r.id, scopes: parseScopes(r.scopes) })]));
    });
  }

  async create(input: ApiKeyCreate, now: Date): Promise<ApiKeyInfo> {
    const [row] = await this.#db.query<KeyRow>(`INSERT INTO api_keys (name, prefix, hash, scopes, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`, [
      input.name,
      input.prefix,
      input.hash,
      input.scopes.join(' '),
      now.toISOString(),
    ]);
    return toKeyInfo(row);
  }

  findActiveByHash(hash: string): Promise<Principal | undefined> {
    // Read for every request, never cached: a revocation committed by any instance (or the CLI)
    // is visible to every instance's next request. The requests of one loop turn share a query.
    return this.#active.get(hash);
  }

  async list(): Promise<ApiKeyInfo[]> {
    return (await this.#db.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY id`)).map(toKeyInfo);
  }

  async revoke(id: number, now: Date): Promise<boolean> {
    // One statement, so one atomic transaction; the row lock the UPDATE takes makes two concurrent
    // revocations of the same key report true exactly once (the second re-checks revoked_at IS NULL).
    const rows = await this.#db.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING id', [now.toISOString(), id]);
    return rows.length === 1;
  }

  async count(): Promise<number> {
    const [row] = await this.#db.query<{ n: number }>('SELECT count(*) AS n FROM api_keys');
    return row.n;
  }
}
