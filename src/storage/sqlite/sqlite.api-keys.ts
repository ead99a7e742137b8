import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { ApiKey } from '../../keys/key.schemas.ts';
import type { StoredPrincipal } from '../../keys/key.types.ts';
import { KEY_COLUMNS, toApiKey, toStoredPrincipal, type KeyRow, type PrincipalRow } from '../rows.ts';
import type { ApiKeyCreate, ApiKeyRepository, ApiKeyTx, KeyQuery } from '../storage.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import { ReadCache, type DatabaseChanges } from './sqlite.read-cache.ts';
import type { Sql } from './sqlite.tx.ts';

const GET = `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`;

export class SqliteApiKeys implements ApiKeyRepository {
  readonly #writes: GroupCommit;
  readonly #sql: Sql;
  readonly #byHash: StatementSync;
  readonly #active: ReadCache<StoredPrincipal>;

  constructor(db: DatabaseSync, sql: Sql, changes: DatabaseChanges, writes: GroupCommit) {
    this.#writes = writes;
    this.#sql = sql;
    // Every request looks its key up. Remembered until the database changes — any commit, by this
    // process or another (`petstore keys revoke`) — so a revocation still applies from the next
    // request on. An expiry needs no change to the database: KeyVerifier compares it with its
    // clock on every request, cached or not. Only keys that exist are remembered: random tokens
    // cannot fill the cache.
    this.#active = new ReadCache(changes, 1_000);
    // Lookup by the hash of a random 256-bit key: the index compares hashes, so response time
    // tells an attacker nothing about how close a guess was to a real key.
    this.#byHash = db.prepare('SELECT id, scopes, expires_at FROM api_keys WHERE hash = ? AND revoked_at IS NULL');
  }

  findActiveByHash(hash: string): Promise<StoredPrincipal | undefined> {
    return this.#writes.outside(() =>
      this.#active.get(hash, () => {
        const row = this.#byHash.get(hash) as PrincipalRow | undefined;
        return row && toStoredPrincipal(row);
      }),
    );
  }

  list(q: KeyQuery): Promise<ApiKey[]> {
    return this.#writes.outside(() =>
      this.#sql.all<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id > ? ORDER BY id LIMIT ?`, q.afterId, q.limit).map(toApiKey),
    );
  }

  get(id: number): Promise<ApiKey | undefined> {
    return this.#writes.outside(() => key(this.#sql.get<KeyRow>(GET, id)));
  }

  count(): Promise<number> {
    return this.#writes.outside(() => this.#sql.get<{ n: number }>('SELECT count(*) AS n FROM api_keys')!.n);
  }
}

/** Keys inside a write (GroupCommit holds the database's write lock: every read here is a lock). */
export class SqliteApiKeyTx implements ApiKeyTx {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async insert(input: ApiKeyCreate, at: Date): Promise<ApiKey> {
    const sql = `INSERT INTO api_keys (name, prefix, hash, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${KEY_COLUMNS}`;
    const expires = input.expiresAt?.toISOString() ?? null;
    return toApiKey(this.#sql.get<KeyRow>(sql, input.name, input.prefix, input.hash, input.scopes.join(' '), at.toISOString(), expires)!);
  }

  async lock(id: number): Promise<ApiKey | undefined> {
    return key(this.#sql.get<KeyRow>(GET, id));
  }

  async revoke(id: number, at: Date): Promise<void> {
    this.#sql.run('UPDATE api_keys SET revoked_at = ? WHERE id = ?', at.toISOString(), id);
  }
}

const key = (row: KeyRow | undefined): ApiKey | undefined => row && toApiKey(row);
