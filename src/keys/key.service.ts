import { hash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError, assertFound, invalid, notFound } from '../errors.ts';
import { onlyActivity, withoutEvents, write } from '../events/event.outbox.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { PageQuery } from '../schemas.ts';
import type { WriteContext } from '../events/event.store.ts';
import type { IdempotentResponse } from '../events/idempotency.store.ts';
import type { ApiKeyRepository } from './key.store.ts';
import type { Storage } from '../storage/storage.ts';
import type { ApiKey, CallingKey, CreatedApiKey, NewApiKey } from './key.schemas.ts';
import { childExpiry, keyIsActive, manages, treeRoot, type KeyManager } from './key.rules.ts';
import { DEFAULT_SCOPES, SCOPES, type Caller, type Principal, type Scope } from './key.types.ts';

export const KEY_PREFIX = 'pst_';
const TREE_ROOTS_KEPT = 100_000;
const GENERATED_KEY = /^pst_[A-Za-z0-9_-]{43}$/;

/**
 * Whether a token has the shape of a key this service generates (`generateKey`): 256 random bits,
 * which no guessing finds — unlike a bootstrap key, which an operator may have chosen short.
 */
export const looksGenerated = (token: string): boolean => GENERATED_KEY.test(token);

/** 32 random bytes, base64url, behind a prefix secret scanners can match (`pst_` + 43 chars). */
export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Keys are random and long, so one SHA-256 (no salt, no stretching) is the right hash. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** What `keys list` shows to tell keys apart: the prefix and first 4 secret characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 4);
}

/** The CLI's word for every scope: `--scopes all` (the API takes the scopes by name only). */
export const ALL_SCOPES = 'all';

/** The CLI's `--scopes` list (comma- or space-separated), or `all`; none given → the default set. */
export function parseScopes(text: string | undefined): Scope[] {
  if (text === undefined || text.trim() === '') return [...DEFAULT_SCOPES];
  const scopes = text.split(/[\s,]+/).filter(Boolean);
  if (scopes.includes(ALL_SCOPES)) {
    if (scopes.length > 1) throw new Error(`"${ALL_SCOPES}" stands alone: it names every scope (${SCOPES.join(', ')})`);
    return [...SCOPES];
  }
  for (const s of scopes) {
    if (!(SCOPES as readonly string[]).includes(s)) throw new Error(`unknown scope "${s}"; known scopes: ${SCOPES.join(', ')}, or ${ALL_SCOPES}`);
  }
  return [...new Set(scopes)] as Scope[];
}

export interface NewKeyOptions {
  /** Default: the current time. */
  readonly now?: Date;
  /** Default: never, or the parent's expiry (`childExpiry`). */
  readonly expiresAt?: Date | null;
  /** The key that makes it; default null (a top-level key). */
  readonly parentId?: number | null;
  /** An owner key manages every key (default false). */
  readonly owner?: boolean;
  /** The most live keys the new key's tree may hold with it (KEYS_MAX_PER_TREE; default: no limit). */
  readonly maxPerTree?: number;
  readonly idempotency?: IdempotentResponse<CreatedApiKey>;
}

export function keyLimitReached(root: number, max: number): AppError {
  return new AppError(
    'key_limit_reached',
    `the tree of this key (key ${root} and the keys below it) holds ${max} live keys, the most one tree may hold (KEYS_MAX_PER_TREE); revoke one first`,
  );
}

// The maker was revoked (or expired) after it was authenticated, before its key was written.
const makerGone = () =>
  new AppError('unauthorized', 'API key is unknown, revoked or expired', { 'www-authenticate': 'Bearer realm="petstore", error="invalid_token"' });

/**
 * Stores a new key and returns it with its secret (shown once). The one way keys are made: the
 * API (KeyService), the CLI, the first-run key and the tests. A key made by another (`parentId`)
 * is written under its parent's row lock, with the parent still active: a revocation of the
 * parent either sees the new key and revokes it too, or is committed first and refuses it here.
 */
export async function createApiKey(
  storage: Storage,
  name: string,
  scopes: readonly Scope[],
  options: NewKeyOptions = {},
): Promise<{ key: string; info: ApiKey }> {
  const { now = new Date(), parentId = null, owner = false, idempotency, maxPerTree = Number.POSITIVE_INFINITY } = options;
  const key = generateKey();
  // The stored response (Idempotency-Key) is the created key with its secret (sealed by http/policies/idempotency.ts).
  const respond = idempotency && { id: idempotency.id, respond: (info: ApiKey) => idempotency.respond({ ...info, key }) };
  const info = await write(storage, { now, idempotency: respond }, async (tx) => {
    let expiresAt = options.expiresAt ?? null;
    if (parentId !== null) {
      // The tree's keys are locked from the top down (as a revocation goes), so that concurrent
      // makers in one tree count one after the other.
      const chain = [parentId, ...(await tx.apiKeys.ancestors(parentId))];
      const topId = chain[chain.length - 1];
      const top = await tx.apiKeys.lock(topId);
      const root = treeRoot(chain, top?.owner === true);
      const rootKey = root === topId ? top : await tx.apiKeys.lock(root);
      const parent = parentId === root ? rootKey : parentId === topId ? top : await tx.apiKeys.lock(parentId);
      if (parent === undefined || !keyIsActive(parent, now)) throw makerGone();
      expiresAt = childExpiry(parent.expiresAt, expiresAt);
      // A key an owner key makes starts a tree of its own.
      if (!parent.owner && (await tx.apiKeys.countLive(root, now)) >= maxPerTree) throw keyLimitReached(root, maxPerTree);
    }
    const input = { name, prefix: displayPrefix(key), hash: hashKey(key), scopes, expiresAt, parentId, owner };
    const created = await tx.apiKeys.insert(input, now);
    return onlyActivity(created, 'key.created', `key:${created.id}`);
  });
  return { key, info };
}

/**
 * Revokes a key and every key below it (the keys it made, directly or through them); they are
 * refused from the next request on. true when this call revoked the key, false when it was
 * revoked already (nothing changes: its descendants were revoked with it). Throws not_found for
 * an unknown key. Who may revoke it is the caller's to check (`manages`).
 */
export function revokeApiKey(storage: Storage, id: number, ctx: WriteContext<boolean>): Promise<boolean> {
  return write(storage, ctx, async (tx) => {
    const key = await tx.apiKeys.lock(id);
    assertFound(`key ${id}`, key);
    if (key.revokedAt !== null) return withoutEvents(false);
    await tx.apiKeys.revokeTree(id, ctx.now);
    return onlyActivity(true, 'key.revoked', `key:${id}`);
  });
}

/** Who issues a key: the calling key (or the operator, `keyId` null), and the scopes it holds. */
export interface Issuer {
  readonly keyId: number | null;
  readonly scopes: readonly Scope[];
}

/**
 * The rules of issuing keys, for the API and the CLI alike: issues a key on behalf of `issuer`,
 * which becomes its parent: the new key's scopes (the default set when none are named) must all
 * be held by the issuer (else 403 insufficient_scope), an expiry must lie after `now` (else 400)
 * and not after the issuer's (`childExpiry`).
 */
export async function issueApiKey(
  storage: Storage,
  input: NewApiKey,
  issuer: Issuer,
  now: Date,
  options: { readonly idempotency?: IdempotentResponse<CreatedApiKey>; readonly owner?: boolean; readonly maxPerTree?: number } = {},
): Promise<CreatedApiKey> {
  const scopes = input.scopes ?? DEFAULT_SCOPES;
  const missing = scopes.filter((s) => !issuer.scopes.includes(s));
  if (missing.length > 0) {
    throw new AppError('insufficient_scope', `this API key cannot grant ${missing.join(', ')}: a key can only grant scopes it holds itself`, {
      'www-authenticate': `Bearer realm="petstore", error="insufficient_scope", scope="${missing.join(' ')}"`,
    });
  }
  let expiresAt: Date | null = null;
  if (input.expiresAt !== undefined) {
    expiresAt = new Date(input.expiresAt);
    if (!(expiresAt.getTime() > now.getTime()))
      throw invalid(`body field "expiresAt" must be in the future (now is ${now.toISOString()})`, {
        in: 'body',
        field: 'expiresAt',
        rule: 'formatMinimum',
        message: 'must be in the future',
      });
  }
  const { key, info } = await createApiKey(storage, input.name, scopes, { now, expiresAt, parentId: issuer.keyId, ...options });
  return { ...info, key };
}

/** The keys operations of the API, each on behalf of the calling key (`manages` decides which keys it sees). */
export class KeyService {
  readonly #storage: Storage;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;
  readonly #maxPerTree: number;

  constructor(storage: Storage, cursors: CursorCodec, clock: Clock, maxPerTree: number) {
    this.#storage = storage;
    this.#cursors = cursors;
    this.#clock = clock;
    this.#maxPerTree = maxPerTree;
  }

  create(input: NewApiKey, caller: Principal, idempotency?: IdempotentResponse<CreatedApiKey>): Promise<CreatedApiKey> {
    return issueApiKey(this.#storage, input, caller, this.#clock.now(), { idempotency, maxPerTree: this.#maxPerTree });
  }

  /** The key; an unknown one, or one the caller does not manage → 404 not_found. */
  async get(caller: KeyManager, id: number): Promise<ApiKey> {
    const key = await this.#storage.apiKeys.get(id);
    if (key === undefined || !(await this.#manages(caller, id))) throw notFound(`key ${id}`);
    return key;
  }

  /** The calling key as a client may see it; a configured (bootstrap) key is stored nowhere, so it has no id, name or expiry. */
  async me(caller: Principal): Promise<CallingKey> {
    if (caller.keyId === null) return { id: null, name: null, scopes: [...caller.scopes], expiresAt: null };
    // A key may always read itself; found, as the request was just authenticated with it.
    const key = await this.#storage.apiKeys.get(caller.keyId);
    if (key === undefined) throw notFound(`key ${caller.keyId}`);
    const { id, name, scopes, expiresAt } = key;
    return { id, name, scopes, expiresAt };
  }

  /** The keys the caller manages: every key for an owner key, else itself and its descendants. */
  list(caller: KeyManager, q: PageQuery): Promise<Page<ApiKey>> {
    const within = caller.owner ? undefined : (caller.keyId ?? 0);
    return this.#cursors.fetchPage(`keys;${within ?? ''}`, q, (limit, afterId = 0) => this.#storage.apiKeys.list({ limit, afterId, within }));
  }

  /**
   * The live keys a revocation of `id` would end besides it (its descendants, neither revoked nor
   * expired), paged by id; an unknown key, or one the caller does not manage → 404 not_found.
   */
  async descendants(caller: KeyManager, id: number, q: PageQuery): Promise<Page<ApiKey>> {
    await this.get(caller, id);
    const liveAt = this.#clock.now();
    return this.#cursors.fetchPage(`keys-under;${id}`, q, (limit, afterId = 0) => this.#storage.apiKeys.descendants({ limit, afterId, under: id, liveAt }));
  }

  /**
   * Revokes a key the caller manages (it may be the caller's own) and its descendants; refused
   * from the next request on. Revoking a revoked key changes nothing and succeeds; an unknown key,
   * or one the caller does not manage → 404 not_found.
   */
  async revoke(caller: KeyManager, id: number): Promise<void> {
    // Parent links never change once written, so reading them outside the revocation's
    // transaction decides the same as inside it.
    if (!(await this.#manages(caller, id))) throw notFound(`key ${id}`);
    await revokeApiKey(this.#storage, id, { now: this.#clock.now() });
  }

  async #manages(caller: KeyManager, id: number): Promise<boolean> {
    return caller.owner || manages(caller, id, await this.#storage.apiKeys.ancestors(id));
  }
}

/**
 * Resolves a presented bearer token to a principal: bootstrap keys from configuration (hashed in
 * memory, every scope, never expiring, owners) first, then stored keys. A revocation applies from
 * the next request on: nothing is cached here (the repository's own freshness rule is in its
 * engine). Whether the key still works (`keyIsActive`) is decided here, against the clock, on
 * every request: an expiry needs no change to the database to apply, so no cache can outlive it.
 */
export class KeyVerifier {
  readonly #bootstrap: Map<string, Caller>;
  readonly #repo: ApiKeyRepository;
  readonly #clock: Clock;
  readonly #roots = new Map<number, number>();

  constructor(repo: ApiKeyRepository, bootstrapKeys: readonly string[], clock: Clock) {
    this.#repo = repo;
    this.#clock = clock;
    this.#bootstrap = new Map(
      bootstrapKeys.map((k) => {
        const hash = hashKey(k);
        const subject = `bootstrap:${hash.slice(0, 16)}`;
        return [hash, { keyId: null, scopes: SCOPES, owner: true, subject, budget: subject }];
      }),
    );
  }

  /** The caller a token belongs to, or undefined for an unknown, revoked or expired key. */
  async verify(token: string): Promise<Caller | undefined> {
    const hash = hashKey(token);
    const bootstrap = this.#bootstrap.get(hash);
    if (bootstrap) return bootstrap;
    const stored = await this.#repo.findByHash(hash);
    if (stored === undefined || !keyIsActive(stored, this.#clock.now())) return undefined;
    const root = stored.keyId === null ? null : await this.#treeRoot(stored.keyId);
    return { keyId: stored.keyId, name: stored.name, scopes: stored.scopes, owner: stored.owner, subject: `key:${stored.keyId}`, budget: `tree:${root}` };
  }

  /**
   * The root of the key's tree (treeRoot), read once per key and kept: parent links and owner
   * flags never change once written. At most TREE_ROOTS_KEPT are kept; then they are read afresh.
   */
  async #treeRoot(keyId: number): Promise<number> {
    const known = this.#roots.get(keyId);
    if (known !== undefined) return known;
    const chain = [keyId, ...(await this.#repo.ancestors(keyId))];
    const top = chain.length === 1 ? undefined : await this.#repo.get(chain[chain.length - 1]);
    const root = treeRoot(chain, top?.owner === true);
    if (this.#roots.size >= TREE_ROOTS_KEPT) this.#roots.clear();
    this.#roots.set(keyId, root);
    return root;
  }
}
