// API keys and Idempotency-Key records.
import { randomBytes } from 'node:crypto';
import type { ApiKey } from '../../keys/key.schemas.ts';
import type { StoredPrincipal } from '../../keys/key.types.ts';
import { IDEMPOTENCY_COLUMNS, KEY_COLUMNS, toApiKey, toIdempotencyRecord, type IdempotencyRow, type KeyRow } from '../rows.ts';
import type { IdempotencyId, IdempotencyRecord, IdempotencyRepository, IdempotencyTx, StoredResponse } from '../../events/idempotency.store.ts';
import type { ApiKeyCreate, ApiKeyRepository, ApiKeyTx, DescendantQuery, KeyQuery } from '../../keys/key.store.ts';
import { first, perDialect, type Dialect, type SqlDb } from './sql.db.ts';

const GET_KEY = `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`;
// The key $n and its descendants (a key's parent is always an older key: no cycles).
export const SUBTREE = (n: number) =>
  `WITH RECURSIVE tree (id) AS (SELECT id FROM api_keys WHERE id = $${n} UNION SELECT k.id FROM api_keys k JOIN tree ON k.parent_id = tree.id)`;
async function ancestors(db: SqlDb, id: number): Promise<number[]> {
  const rows = await db.all<{ id: number }>(
    `WITH RECURSIVE up (id, parent_id) AS (
       SELECT id, parent_id FROM api_keys WHERE id = $1 UNION SELECT k.id, k.parent_id FROM api_keys k JOIN up ON k.id = up.parent_id
     ) SELECT id FROM up WHERE id <> $1`,
    [id],
  );
  return rows.map((r) => r.id);
}
// Two concurrent revocations of one key: the second waits for the lock, then reads it revoked.
const LOCK_KEY = perDialect((d) => `${GET_KEY} ${d.lock('FOR NO KEY UPDATE')}`);

/** The key reads; the lookup every request makes is the engine's, with its cache (`findByHash`). */
export class SqlApiKeys implements ApiKeyRepository {
  readonly #db: SqlDb;
  readonly findByHash: (hash: string) => Promise<StoredPrincipal | undefined>;

  constructor(db: SqlDb, findByHash: (hash: string) => Promise<StoredPrincipal | undefined>) {
    this.#db = db;
    this.findByHash = findByHash;
  }

  async list(q: KeyQuery): Promise<ApiKey[]> {
    const rows =
      q.within === undefined
        ? await this.#db.all<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id > $1 ORDER BY id LIMIT $2`, [q.afterId, q.limit])
        : await this.#db.all<KeyRow>(`${SUBTREE(3)} SELECT ${KEY_COLUMNS} FROM api_keys WHERE id IN (SELECT id FROM tree) AND id > $1 ORDER BY id LIMIT $2`, [
            q.afterId,
            q.limit,
            q.within,
          ]);
    return rows.map(toApiKey);
  }

  async descendants(q: DescendantQuery): Promise<ApiKey[]> {
    const rows = await this.#db.all<KeyRow>(
      `${SUBTREE(3)} SELECT ${KEY_COLUMNS} FROM api_keys WHERE id IN (SELECT id FROM tree) AND id <> $3 AND id > $1
         AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $4) ORDER BY id LIMIT $2`,
      [q.afterId, q.limit, q.under, q.liveAt.toISOString()],
    );
    return rows.map(toApiKey);
  }

  async get(id: number): Promise<ApiKey | undefined> {
    return key(await first(this.#db, GET_KEY, [id]));
  }

  ancestors(id: number): Promise<number[]> {
    return ancestors(this.#db, id);
  }

  async count(): Promise<number> {
    return (await first<{ n: number }>(this.#db, 'SELECT count(*) AS n FROM api_keys'))!.n;
  }
}

export class SqlApiKeyTx implements ApiKeyTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async insert(input: ApiKeyCreate, at: Date): Promise<ApiKey> {
    const sql = `INSERT INTO api_keys (name, prefix, hash, scopes, created_at, expires_at, parent_id, owner) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${KEY_COLUMNS}`;
    const params = [
      input.name,
      input.prefix,
      input.hash,
      input.scopes.join(' '),
      at.toISOString(),
      input.expiresAt?.toISOString() ?? null,
      input.parentId ?? null,
      input.owner ?? false,
    ];
    return toApiKey((await first<KeyRow>(this.#db, sql, params))!);
  }

  async lock(id: number): Promise<ApiKey | undefined> {
    return key(await first(this.#db, LOCK_KEY(this.#d), [id]));
  }

  async revokeTree(id: number, at: Date): Promise<number> {
    // Repeated until a pass finds nothing: on PostgreSQL (READ COMMITTED) a key made under a
    // descendant by a transaction that committed while a pass ran is not in that pass's snapshot,
    // but is in the next one's. (Its maker locked the parent, so it committed before the pass
    // revoked the parent, or it waited for this revocation and was refused.)
    let total = 0;
    for (;;) {
      const n = await this.#db.run(`${SUBTREE(1)} UPDATE api_keys SET revoked_at = $2 WHERE id IN (SELECT id FROM tree) AND revoked_at IS NULL`, [
        id,
        at.toISOString(),
      ]);
      if (n === 0) return total;
      total += n;
    }
  }

  ancestors(id: number): Promise<number[]> {
    return ancestors(this.#db, id);
  }

  async countLive(id: number, at: Date): Promise<number> {
    const sql = `${SUBTREE(1)} SELECT count(*) AS n FROM api_keys WHERE id IN (SELECT id FROM tree) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`;
    return (await first<{ n: number }>(this.#db, sql, [id, at.toISOString()]))!.n;
  }
}

const ID = 'subject = $1 AND operation = $2 AND key = $3';

// A claim in flight is dead when it is too old (abandonedBefore) or its holder is gone: an instance
// that is no longer alive (Dialect.alive; rows of the release before migration 8 name none and
// wait out the age limit).
const CLAIM = perDialect(
  (d) => `INSERT INTO idempotency_keys AS k (subject, operation, key, fingerprint, created_at, instance) VALUES ($1, $2, $3, $4, $5, $8)
    ON CONFLICT (subject, operation, key) DO UPDATE
      SET fingerprint = excluded.fingerprint, status = NULL, body = NULL, location = NULL, created_at = excluded.created_at, instance = excluded.instance
      WHERE k.created_at < $6 OR (k.status IS NULL AND (k.created_at < $7 OR (k.instance IS NOT NULL AND NOT (${d.alive('k.instance')}))))
    RETURNING 1`,
);

/** Claims run outside any workflow, each statement its own transaction; `instance` holds them (Dialect.alive). */
export class SqlIdempotency implements IdempotencyRepository {
  readonly #db: SqlDb;
  readonly #d: Dialect;
  readonly #instance: number;

  constructor(db: SqlDb, dialect: Dialect, instance: number) {
    this.#db = db;
    this.#d = dialect;
    this.#instance = instance;
  }

  async claim(id: IdempotencyId, fingerprint: string, now: Date, expiredBefore: Date, abandonedBefore: Date): Promise<IdempotencyRecord | undefined> {
    const ids = [id.subject, id.operation, id.key];
    // Insert, or take over a dead record, in one statement: a concurrent claim of the same key
    // waits for the row (PostgreSQL's row lock; SQLite's write lock) and then sees the winner's
    // live row, so only one of them gets RETURNING. A live row is read by a second statement, which
    // sees the concurrent commit; if it vanished in between (released or purged), claim again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await this.#db.all(CLAIM(this.#d), [
        ...ids,
        fingerprint,
        now.getTime(),
        expiredBefore.getTime(),
        abandonedBefore.getTime(),
        this.#instance,
      ]);
      if (claimed.length === 1) return undefined;
      const row = await first<IdempotencyRow>(this.#db, `SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency_keys WHERE ${ID}`, ids);
      if (row) return toIdempotencyRecord(row);
    }
    throw new Error(`idempotency key ${id.key} kept changing while being claimed`);
  }

  async release(id: IdempotencyId): Promise<void> {
    await this.#db.run(`DELETE FROM idempotency_keys WHERE ${ID} AND status IS NULL`, [id.subject, id.operation, id.key]);
  }

  purge(before: Date): Promise<number> {
    return this.#db.run('DELETE FROM idempotency_keys WHERE created_at < $1', [before.getTime()]);
  }
}

export class SqlIdempotencyTx implements IdempotencyTx {
  readonly #db: SqlDb;
  readonly #instance: number;

  constructor(db: SqlDb, instance: number) {
    this.#db = db;
    this.#instance = instance;
  }

  // Only the holder completes its claim: one another instance took over is no longer this one's.
  async complete(id: IdempotencyId, r: StoredResponse): Promise<boolean> {
    const sql = `UPDATE idempotency_keys SET status = $4, body = $5, location = $6 WHERE ${ID} AND status IS NULL AND instance = $7`;
    return (await this.#db.run(sql, [id.subject, id.operation, id.key, r.status, r.body, r.location, this.#instance])) === 1;
  }
}

const key = (row: KeyRow | undefined): ApiKey | undefined => row && toApiKey(row);

/** A random secret created once per database (the first instance to ask creates it), shared by every instance. */
export async function databaseSecret(db: SqlDb, name: string): Promise<string> {
  await db.run('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [name, randomBytes(32).toString('base64url')]);
  return (await first<{ value: string }>(db, 'SELECT value FROM meta WHERE key = $1', [name]))!.value;
}

/** A value kept in `meta` under `name` (Storage.setting). */
export async function databaseSetting(db: SqlDb, name: string): Promise<string | undefined> {
  return (await first<{ value: string }>(db, 'SELECT value FROM meta WHERE key = $1', [name]))?.value;
}

/** Saves `value` under `name` in `meta`, replacing what was there (Storage.saveSetting). */
export async function saveDatabaseSetting(db: SqlDb, name: string, value: string): Promise<void> {
  await db.run('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [name, value]);
}
