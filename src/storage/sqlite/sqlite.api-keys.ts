import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { ApiKeyInfo, Principal } from '../../keys/key.types.ts';
import { KEY_COLUMNS, parseScopes, toKeyInfo, type KeyRow } from '../rows.ts';
import type { ApiKeyCreate, ApiKeyRepository } from '../storage.ts';
import { ReadCache, type DatabaseChanges } from './sqlite.read-cache.ts';

export class SqliteApiKeys implements ApiKeyRepository {
  readonly #insert: StatementSync;
  readonly #byHash: StatementSync;
  readonly #list: StatementSync;
  readonly #revoke: StatementSync;
  readonly #count: StatementSync;
  readonly #active: ReadCache<Principal>;

  constructor(db: DatabaseSync, changes: DatabaseChanges) {
    // Every request looks its key up. Remembered until the database changes — any commit, by this
    // process or another (`petstore keys revoke`) — so a revocation still applies from the next
    // request on. Only keys that exist are remembered: random tokens cannot fill the cache.
    this.#active = new ReadCache(changes, 1_000);
    this.#insert = db.prepare(`INSERT INTO api_keys (name, prefix, hash, scopes, created_at) VALUES (?, ?, ?, ?, ?) RETURNING ${KEY_COLUMNS}`);
    // Lookup by the hash of a random 256-bit key: the index compares hashes, so response time
    // tells an attacker nothing about how close a guess was to a real key.
    this.#byHash = db.prepare('SELECT id, scopes FROM api_keys WHERE hash = ? AND revoked_at IS NULL');
    this.#list = db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY id`);
    this.#revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.#count = db.prepare('SELECT count(*) AS n FROM api_keys');
  }

  async create(input: ApiKeyCreate, now: Date): Promise<ApiKeyInfo> {
    return toKeyInfo(this.#insert.get(input.name, input.prefix, input.hash, input.scopes.join(' '), now.toISOString()) as unknown as KeyRow);
  }

  async findActiveByHash(hash: string): Promise<Principal | undefined> {
    return this.#active.get(hash, () => {
      const row = this.#byHash.get(hash) as { id: number; scopes: string } | undefined;
      return row && Object.freeze({ keyId: row.id, scopes: Object.freeze(parseScopes(row.scopes)) });
    });
  }

  async list(): Promise<ApiKeyInfo[]> {
    return (this.#list.all() as unknown as KeyRow[]).map(toKeyInfo);
  }

  async revoke(id: number, now: Date): Promise<boolean> {
    return Number(this.#revoke.run(now.toISOString(), id).changes) === 1;
  }

  async count(): Promise<number> {
    return (this.#count.get() as { n: number }).n;
  }
}
