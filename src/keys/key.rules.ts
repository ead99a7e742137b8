// The rules of the key tree (docs/api.md, "Who may revoke whom"): whether a key works, how long a
// key it makes may live, and which keys a key may read and revoke. Pure: no storage, no clock.

const ms = (t: string | number): number => (typeof t === 'number' ? t : Date.parse(t));

/**
 * Whether a key works at `now`: not revoked, not expired. The one rule, for authentication
 * (KeyVerifier) and for anything else that asks whether a key still stands (a webhook endpoint's
 * owner).
 */
export function keyIsActive(key: { readonly revokedAt: string | number | null; readonly expiresAt: string | number | null }, now: Date): boolean {
  return key.revokedAt === null && (key.expiresAt === null || now.getTime() < ms(key.expiresAt));
}
