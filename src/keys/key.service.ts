import { hash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError, assertFound, notFound } from '../errors.ts';
import { withoutEvents, write } from '../events/event.outbox.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { PageQuery } from '../schemas.ts';
import type { ApiKeyRepository, IdempotentResponse, Storage, WriteContext } from '../storage/storage.ts';
import { keyIsActive } from './key.rules.ts';
import type { ApiKey, CreatedApiKey, NewApiKey } from './key.schemas.ts';
import { DEFAULT_SCOPES, SCOPES, type Caller, type Scope } from './key.types.ts';

export const KEY_PREFIX = 'pst_';

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

/**
 * Stores a new key and returns it with its secret (shown once). The one way keys are made: the
 * API (KeyService), the CLI, the first-run key and the tests.
 */
export async function createApiKey(
  storage: Storage,
  name: string,
  scopes: readonly Scope[],
  now = new Date(),
  expiresAt: Date | null = null,
  idempotency?: IdempotentResponse<CreatedApiKey>,
): Promise<{ key: string; info: ApiKey }> {
  const key = generateKey();
  // The stored response (Idempotency-Key) is the created key with its secret (sealed by http/policies/idempotency.ts).
  const respond = idempotency && { id: idempotency.id, respond: (info: ApiKey) => idempotency.respond({ ...info, key }) };
  const input = { name, prefix: displayPrefix(key), hash: hashKey(key), scopes, expiresAt };
  const info = await write(storage, { now, idempotency: respond }, async (tx) => withoutEvents(await tx.apiKeys.insert(input, now)));
  return { key, info };
}

/**
 * Revokes a key; it is refused from the next request on. true when this call revoked it, false
 * when it was revoked already (nothing changes). Throws not_found for an unknown key.
 */
export function revokeApiKey(storage: Storage, id: number, ctx: WriteContext<boolean>): Promise<boolean> {
  return write(storage, ctx, async (tx) => {
    const key = await tx.apiKeys.lock(id);
    assertFound(`key ${id}`, key);
    if (key.revokedAt !== null) return withoutEvents(false);
    await tx.apiKeys.revoke(id, ctx.now);
    return withoutEvents(true);
  });
}

/**
 * The rules of issuing keys, for the API and the CLI alike: issues a key on behalf of a key
 * holding `granter`: the new key's scopes (the default set when none are named) must all be held
 * by the granter (else 403 insufficient_scope), and an expiry must lie after `now` (else 400).
 */
export async function issueApiKey(
  storage: Storage,
  input: NewApiKey,
  granter: readonly Scope[],
  now: Date,
  idempotency?: IdempotentResponse<CreatedApiKey>,
): Promise<CreatedApiKey> {
  const scopes = input.scopes ?? DEFAULT_SCOPES;
  const missing = scopes.filter((s) => !granter.includes(s));
  if (missing.length > 0) {
    throw new AppError('insufficient_scope', `this API key cannot grant ${missing.join(', ')}: a key can only grant scopes it holds itself`, {
      'www-authenticate': `Bearer realm="petstore", error="insufficient_scope", scope="${missing.join(' ')}"`,
    });
  }
  let expiresAt: Date | null = null;
  if (input.expiresAt !== undefined) {
    expiresAt = new Date(input.expiresAt);
    if (!(expiresAt.getTime() > now.getTime()))
      throw new AppError('validation_failed', `body field "expiresAt" must be in the future (now is ${now.toISOString()})`);
  }
  const { key, info } = await createApiKey(storage, input.name, scopes, now, expiresAt, idempotency);
  return { ...info, key };
}

/** The keys operations of the API. */
export class KeyService {
  readonly #storage: Storage;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;

  constructor(storage: Storage, cursors: CursorCodec, clock: Clock) {
    this.#storage = storage;
    this.#cursors = cursors;
    this.#clock = clock;
  }

  create(input: NewApiKey, granter: readonly Scope[], idempotency?: IdempotentResponse<CreatedApiKey>): Promise<CreatedApiKey> {
    return issueApiKey(this.#storage, input, granter, this.#clock.now(), idempotency);
  }

  /** The key; an unknown one → 404 not_found. */
  async get(id: number): Promise<ApiKey> {
    const key = await this.#storage.apiKeys.get(id);
    if (key === undefined) throw notFound(`key ${id}`);
    return key;
  }

  list(q: PageQuery): Promise<Page<ApiKey>> {
    return this.#cursors.fetchPage('keys;', q, (limit, afterId = 0) => this.#storage.apiKeys.list({ limit, afterId }));
  }

  /**
   * Revokes a key (it may be the caller's own); refused from the next request on. Revoking a
   * revoked key changes nothing and succeeds; an unknown key → 404 not_found.
   */
  async revoke(id: number): Promise<void> {
    await revokeApiKey(this.#storage, id, { now: this.#clock.now() });
  }
}

/**
 * Resolves a presented bearer token to a principal: bootstrap keys from configuration (hashed in
 * memory, every scope, never expiring) first, then stored keys. A revocation applies from the
 * next request on: nothing is cached here (the repository's own freshness rule is in its
 * engine). An expiry is compared with the clock here, on every request: it needs no change to
 * the database to apply, so no cache can outlive it.
 */
export class KeyVerifier {
  readonly #bootstrap: Map<string, Caller>;
  readonly #repo: ApiKeyRepository;
  readonly #clock: Clock;

  constructor(repo: ApiKeyRepository, bootstrapKeys: readonly string[], clock: Clock) {
    this.#repo = repo;
    this.#clock = clock;
    this.#bootstrap = new Map(
      bootstrapKeys.map((k) => {
        const hash = hashKey(k);
        return [hash, { keyId: null, scopes: SCOPES, subject: `bootstrap:${hash.slice(0, 16)}` }];
      }),
    );
  }

  /** The caller a token belongs to, or undefined for an unknown, revoked or expired key. */
  async verify(token: string): Promise<Caller | undefined> {
    const hash = hashKey(token);
    const bootstrap = this.#bootstrap.get(hash);
    if (bootstrap) return bootstrap;
    const stored = await this.#repo.findActiveByHash(hash);
    // findActiveByHash leaves revoked keys out.
    if (stored === undefined || !keyIsActive({ revokedAt: null, expiresAt: stored.expiresAt }, this.#clock.now())) return undefined;
    return { keyId: stored.keyId, scopes: stored.scopes, subject: `key:${stored.keyId}` };
  }
}
