// The rules of the key tree (docs/api.md, "Who may revoke whom"): whether a key works, how long a
// key it makes may live, and which keys a key may read and revoke. Pure: no storage, no clock.
import { invalid } from '../errors.ts';
import type { KeyLifetime } from './key.types.ts';

const ms = (t: string | number): number => (typeof t === 'number' ? t : Date.parse(t));

/**
 * Whether a key works at `now`: not revoked, not expired. The one rule, for authentication
 * (KeyVerifier) and for anything else that asks whether a key still stands (a webhook endpoint's
 * owner). It covers the tree too: revoking a key revokes its descendants in the same transaction
 * (`revokeApiKey`), and no key expires later than the key that made it (`childExpiry`), so a key
 * whose ancestor is revoked or expired is itself revoked or expired.
 */
export function keyIsActive(key: KeyLifetime, now: Date): boolean {
  return key.revokedAt === null && (key.expiresAt === null || now.getTime() < ms(key.expiresAt));
}

/**
 * The expiry of a key made by a key expiring at `parent` (null: never). A key never outlives its
 * maker: without an expiry of its own it expires with its parent; an expiry later than the
 * parent's is refused (400), not silently shortened.
 */
export function childExpiry(parent: string | null, requested: Date | null): Date | null {
  if (parent === null) return requested;
  if (requested === null) return new Date(parent);
  if (requested.getTime() > Date.parse(parent)) {
    throw invalid(`body field "expiresAt" must not be later than the expiry of the key that makes it (${parent})`, {
      in: 'body',
      field: 'expiresAt',
      rule: 'formatMaximum',
      message: `must not be later than your own key's expiry (${parent})`,
    });
  }
  return requested;
}

/** Who manages keys: a key (its id, whether it is an owner key), or the operator's CLI (no key, owner). */
export interface KeyManager {
  readonly keyId: number | null;
  readonly owner: boolean;
}

/** The operator (CLI): above the tree, it reads and revokes every key. */
export const OPERATOR: KeyManager = Object.freeze({ keyId: null, owner: true });

/**
 * Whether `manager` may read and revoke the key `keyId`, whose ancestors (its parent, the parent's
 * parent, …) are `ancestors`: an owner key, a bootstrap key and the operator manage every key;
 * any other key manages itself and its descendants only.
 */
export function manages(manager: KeyManager, keyId: number, ancestors: readonly number[]): boolean {
  if (manager.owner) return true;
  return manager.keyId !== null && (manager.keyId === keyId || ancestors.includes(manager.keyId));
}

/**
 * The key whose subtree a key's budgets are counted in (webhook endpoints, live keys): its topmost
 * ancestor below an owner key, or itself. `chain` is the key, its parent, …, up to its top-level
 * key; owner keys are top-level only (the CLI makes them) and stand above the trees they make, so
 * each key an owner key makes starts a tree of its own.
 */
export function treeRoot(chain: readonly number[], topIsOwner: boolean): number {
  return topIsOwner && chain.length > 1 ? chain[chain.length - 2] : chain[chain.length - 1];
}
