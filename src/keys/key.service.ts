import { hash, randomBytes } from 'node:crypto';
import type { ApiKeyRepository } from '../storage/storage.ts';
import { DEFAULT_SCOPES, SCOPES, type ApiKeyInfo, type Caller, type Scope } from './key.types.ts';

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

export function parseScopes(text: string | undefined): Scope[] {
  if (text === undefined || text.trim() === '') return [...DEFAULT_SCOPES];
  const scopes = text.split(/[\s,]+/).filter(Boolean);
  for (const s of scopes) {
    if (!(SCOPES as readonly string[]).includes(s)) throw new Error(`unknown scope "${s}"; known scopes: ${SCOPES.join(', ')}`);
  }
  return [...new Set(scopes)] as Scope[];
}

export async function createApiKey(repo: ApiKeyRepository, name: string, scopes: readonly Scope[], now = new Date()): Promise<{ key: string; info: ApiKeyInfo }> {
  const key = generateKey();
  const info = await repo.create({ name, prefix: displayPrefix(key), hash: hashKey(key), scopes }, now);
  return { key, info };
}

/**
 * Resolves a presented bearer token to a principal: bootstrap keys from configuration (hashed in
 * memory) first, then stored keys. A revocation applies from the next request on: nothing is
 * cached here (the repository's own freshness rule is in its engine).
 */
export class KeyVerifier {
  readonly #bootstrap: Map<string, Caller>;
  readonly #repo: ApiKeyRepository;

  constructor(repo: ApiKeyRepository, bootstrapKeys: readonly string[]) {
    this.#repo = repo;
    this.#bootstrap = new Map(
      bootstrapKeys.map((k) => {
        const hash = hashKey(k);
        return [hash, { keyId: null, scopes: SCOPES, subject: `bootstrap:${hash.slice(0, 16)}` }];
      }),
    );
  }

  /** The caller a token belongs to, or undefined for an unknown or revoked key. */
  async verify(token: string): Promise<Caller | undefined> {
    const hash = hashKey(token);
    const bootstrap = this.#bootstrap.get(hash);
    if (bootstrap) return bootstrap;
    const stored = await this.#repo.findActiveByHash(hash);
    return stored && { ...stored, subject: `key:${stored.keyId}` };
  }
}
