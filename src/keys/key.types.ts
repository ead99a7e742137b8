// Scopes, one per line so that adding one is a one-line change.

/** Every scope a key can hold. */
export const SCOPES = [
  'pets:read',
  'pets:write',
  'health:read',
  'health:write',
  'orders:read',
  'orders:write',
  'customers:read',
  'customers:write',
  'categories:write',
  'events:read',
  'keys:admin',
  'webhooks:admin',
  'staff:read',
  'staff:admin',
  'activity:read',
] as const;
export type Scope = (typeof SCOPES)[number];
/**
 * What a new key holds when nobody names its scopes (`keys create` without `--scopes`, createKey
 * without `scopes`): every scope but the admin ones (`…:admin`), those of customers' personal
 * data (`customers:…`), `staff:read` (the staff's names and e-mail addresses) and `activity:read` (who
 * did what, by name), which a key holds only when they were asked for by name: least privilege for what can harm the store or a person
 * (docs/api.md, "Authentication").
 */
export const DEFAULT_SCOPES: readonly Scope[] = SCOPES.filter(
  (s) => !s.endsWith(':admin') && !s.startsWith('customers:') && s !== 'staff:read' && s !== 'activity:read',
);
/** What the default set leaves out: held only when named (or with `--scopes all` in the CLI). */
export const NAMED_ONLY_SCOPES: readonly Scope[] = SCOPES.filter((s) => !DEFAULT_SCOPES.includes(s));

/** The identity a request runs as once its bearer token is accepted. */
export interface Principal {
  readonly keyId: number | null; // null for bootstrap keys from PETSTORE_API_KEYS
  readonly scopes: readonly Scope[];
  /**
   * Whether it reads and revokes every key (an owner key, a bootstrap key); otherwise only its own
   * subtree: itself and the keys it made, directly or through them (docs/api.md, "Who may revoke whom").
   */
  readonly owner: boolean;
}

/**
 * When a key stops working, as `keyIsActive` reads it: ISO timestamps (ApiKey) or ms since the
 * epoch (StoredPrincipal); null when not set.
 */
export interface KeyLifetime {
  readonly revokedAt: string | number | null;
  readonly expiresAt: string | number | null;
}

/** A stored key as its lookup finds it: the principal and when it stops working (ms since the epoch). */
export interface StoredPrincipal extends Principal {
  /** The key's name (the actor of the writes it makes: activity/). */
  readonly name: string;
  readonly revokedAt: number | null;
  readonly expiresAt: number | null;
}

/**
 * A principal with a stable name for per-key state (rate limits, idempotency keys):
 * `key:<id>` for stored keys, `bootstrap:<first 16 hex of the key's SHA-256>` for bootstrap keys.
 */
export interface Caller extends Principal {
  readonly subject: string;
  /**
   * The name its requests are counted under (RATE_LIMIT_PER_MINUTE): its key tree's,
   * `tree:<id of the tree's root>` (key.rules.ts, treeRoot), so that keys minted to spread
   * requests share one budget; a bootstrap key's subject.
   */
  readonly budget: string;
  /** Who it is, for the activity log: the key's name, the person's name; absent for a configured (bootstrap) key. */
  readonly name?: string;
  /** Set when the request is signed in with a staff session (its cookie) rather than an API key. */
  readonly staff?: SignedIn;
}

/** The person and session a cookie-authenticated request runs as (staff/session.service.ts). */
export interface SignedIn {
  readonly id: number;
  readonly sessionId: number;
  /** The session's CSRF token, which an unsafe request must send (http/policies/session-cookie.ts). */
  readonly csrf: string;
}
