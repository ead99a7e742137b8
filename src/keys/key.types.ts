/** Every scope a key can hold. */
export const SCOPES = ['pets:read', 'pets:write', 'orders:read', 'orders:write', 'events:read', 'webhooks:admin'] as const;
export type Scope = (typeof SCOPES)[number];
/** What a new key holds unless told otherwise: every scope but the admin ones, which are granted only explicitly. */
export const DEFAULT_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== 'webhooks:admin');

/** What an operator sees of a key: never the secret, never its hash. */
export interface ApiKeyInfo {
  readonly id: number;
  readonly name: string;
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

/** The identity a request runs as once its bearer token is accepted. */
export interface Principal {
  readonly keyId: number | null; // null for bootstrap keys from PETSTORE_API_KEYS
  readonly scopes: readonly Scope[];
}

/**
 * A principal with a stable name for per-key state (rate limits, idempotency keys):
 * `key:<id>` for stored keys, `bootstrap:<first 16 hex of the key's SHA-256>` for bootstrap keys.
 */
export interface Caller extends Principal {
  readonly subject: string;
}
