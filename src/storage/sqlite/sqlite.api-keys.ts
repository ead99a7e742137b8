import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { ApiKeyInfo, Principal, Scope } from '../../keys/key.types.ts';
import type { ApiKeyCreate, ApiKeyRepository } from '../storage.ts';

interface KeyRow {
  id: number;
  name: string;
  prefix: string;
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

const toInfo = (r: KeyRow): ApiKeyInfo => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  scopes: r.scopes.split(' ') as Scope[],
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

export class SqliteApiKeys implements ApiKeyRepository {
  readonly #insert: StatementSync;
  readonly #byHash: StatementSync;
  readonly #list: StatementSync;
  readonly #revoke: StatementSync;
  readonly #count: StatementSync;

  constructor(db: DatabaseSync) {
    const cols = 'id, name, prefix, scopes, created_at, revoked_at';
    this.#insert = db.prepare(`INSERT INTO api_keys (name, prefix, hash, scopes, created_at) VALUES (?, ?, ?, ?, ?) RETURNING ${cols}`);
    // Lookup by the hash of a random 256-bit key: the index compares hashes, so response time
    // tells an attacker nothing about how close a guess was to a real key.
    this.#byHash = db.prepare('SELECT id, scopes FROM api_keys WHERE hash = ? AND revoked_at IS NULL');
    this.#list = db.prepare(`SELECT ${cols} FROM api_keys ORDER BY id`);
    this.#revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.#count = db.prepare('SELECT count(*) AS n FROM api_keys');
  }

  async create(input: ApiKeyCreate, now: Date): Promise<ApiKeyInfo> {
    return toInfo(this.#insert.get(input.name, input.prefix, input.hash, input.scopes.join(' '), now.toISOString()) as unknown as KeyRow);
  }

  async findActiveByHash(hash: string): Promise<Principal | undefined> {
    const row = this.#byHash.get(hash) as { id: number; scopes: string } | undefined;
    return row && { keyId: row.id, scopes: row.scopes.split(' ') as Scope[] };
  }

  async list(): Promise<ApiKeyInfo[]> {
    return (this.#list.all() as unknown as KeyRow[]).map(toInfo);
  }

  async revoke(id: number, now: Date): Promise<boolean> {
    return Number(this.#revoke.run(now.toISOString(), id).changes) === 1;
  }

  async count(): Promise<number> {
    return (this.#count.get() as { n: number }).n;
  }
}
