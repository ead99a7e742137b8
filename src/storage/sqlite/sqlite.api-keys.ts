import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { ApiKey } from '../../keys/key.schemas.ts';
import type { StoredPrincipal } from '../../keys/key.types.ts';
import { KEY_COLUMNS, toApiKey, toStoredPrincipal, type KeyRow, type PrincipalRow } from '../rows.ts';
import type { ApiKeyCreate, ApiKeyRepository, KeyQuery, WriteContext } from '../storage.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import type { SqliteOutbox } from './sqlite.outbox.ts';
import { ReadCache, type DatabaseChanges } from './sqlite.read-cache.ts';

export class SqliteApiKeys implements ApiKeyRepository {
  readonly #writes: GroupCommit;
  readonly #outbox: SqliteOutbox;
  readonly #insert: StatementSync;
  readonly #byHash: StatementSync;
  readonly #list: StatementSync;
  readonly #get: StatementSync;
  readonly #revoke: StatementSync;
  readonly #count: StatementSync;
  readonly #active: ReadCache<StoredPrincipal>;

  constructor(db: DatabaseSync, changes: DatabaseChanges, writes: GroupCommit, outbox: SqliteOutbox) {
    this.#writes = writes;
    this.#outbox = outbox;
    // Every request looks its key up. Remembered until the database changes — any commit, by this
    // process or another (`petstore keys revoke`) — so a revocation still applies from the next
    // request on. An expiry needs no change to the database: KeyVerifier compares it with its
    // clock on every request, cached or not. Only keys that exist are remembered: random tokens
    // cannot fill the cache.
    this.#active = new ReadCache(changes, 1_000);
    this.#insert = db.prepare(`INSERT INTO api_keys (name, prefix, hash, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${KEY_COLUMNS}`);
    // Lookup by the hash of a random 256-bit key: the index compares hashes, so response time
    // tells an attacker nothing about how close a guess was to a real key.
    this.#byHash = db.prepare('SELECT id, scopes, expires_at FROM api_keys WHERE hash = ? AND revoked_at IS NULL');
    this.#list = db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id > ? ORDER BY id LIMIT ?`);
    this.#get = db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`);
    this.#revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.#count = db.prepare('SELECT count(*) AS n FROM api_keys');
  }

  async create(input: ApiKeyCreate, ctx: WriteContext<ApiKey>): Promise<ApiKey> {
    return this.#writes.run(() => {
      const row = this.#insert.get(input.name, input.prefix, input.hash, input.scopes.join(' '), ctx.now.toISOString(), input.expiresAt?.toISOString() ?? null);
      return this.#outbox.record(ctx, toApiKey(row as unknown as KeyRow), []);
    });
  }

  async findActiveByHash(hash: string): Promise<StoredPrincipal | undefined> {
    return this.#active.get(hash, () => {
      const row = this.#byHash.get(hash) as PrincipalRow | undefined;
      return row && toStoredPrincipal(row);
    });
  }

  async list(q: KeyQuery): Promise<ApiKey[]> {
    return (this.#list.all(q.afterId, q.limit) as unknown as KeyRow[]).map(toApiKey);
  }

  async get(id: number): Promise<ApiKey | undefined> {
    const row = this.#get.get(id) as KeyRow | undefined;
    return row && toApiKey(row);
  }

  async revoke(id: number, now: Date): Promise<boolean> {
    return Number(this.#revoke.run(now.toISOString(), id).changes) === 1;
  }

  async count(): Promise<number> {
    return (this.#count.get() as { n: number }).n;
  }
}
