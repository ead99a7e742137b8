// Who may manage an endpoint, and what an endpoint may be sent (docs/api.md, "Who reads an
// event" and "Who manages a webhook endpoint"). An endpoint reads as the key that owns it now: it
// is sent an event only when that key may read it (events/event.access.ts) and the endpoint
// subscribes to its type. It is managed — changed, its secret rotated, deleted, its deliveries
// retried — as its owner key is revoked: by that key, the keys above it, and owner keys.
import { AppError } from '../errors.ts';
import { mayRead, readScopeOf } from '../events/event.access.ts';
import type { EventType } from '../events/event.schemas.ts';
import { keyIsActive, manages, type KeyManager } from '../keys/key.rules.ts';
import { SCOPES, type Scope } from '../keys/key.types.ts';
import type { Storage, Transaction } from '../storage/storage.ts';
import type { Webhook } from './webhook.schemas.ts';

/** A key acting on endpoints: who it is (`manages` decides over whose endpoints) and what it may read. */
export interface WebhookActor extends KeyManager {
  readonly scopes: readonly Scope[];
}

/**
 * 403 forbidden unless `actor` manages the endpoint: an owner key (or a bootstrap key) manages
 * every endpoint; any other key those owned by itself or by a key below it. An endpoint without an
 * owner key (a bootstrap key's, or older than owners) is managed by owner keys only.
 */
export async function assertManages(tx: Transaction, actor: KeyManager, webhook: Pick<Webhook, 'id' | 'keyId'>): Promise<void> {
  if (actor.owner) return;
  if (webhook.keyId !== null && manages(actor, webhook.keyId, await tx.apiKeys.ancestors(webhook.keyId))) return;
  throw notManaged(webhook);
}

/** 403 forbidden: the calling key does not manage the endpoint. */
export function notManaged(webhook: Pick<Webhook, 'id' | 'keyId'>): AppError {
  const owner = webhook.keyId === null ? 'no key (owner keys manage it)' : `key ${webhook.keyId}`;
  return new AppError(
    'forbidden',
    `this API key does not manage webhook ${webhook.id}, which belongs to ${owner}: an endpoint is changed, rotated, deleted and retried only by the key that owns it, the keys above that key, and owner keys`,
  );
}

/**
 * The most endpoints a key that is not an owner key may own, itself and the keys below it
 * together: half the store's (WEBHOOK_MAX_ENDPOINTS), so one integration's keys never take every
 * slot and an owner key can always register.
 */
export const maxOwnedBelow = (maxEndpoints: number): number => Math.max(1, Math.floor(maxEndpoints / 2));

/** The key an endpoint reads as: whether it still stands, and its scopes (every scope for an endpoint without an owner key). */
export interface EndpointReader {
  readonly stands: boolean;
  readonly scopes: readonly Scope[];
}

/** The reader of an endpoint owned by `keyId` at `now` (keyIsActive: the rule authentication applies). */
export async function endpointReader(storage: Storage, keyId: number | null, now: Date): Promise<EndpointReader> {
  if (keyId === null) return { stands: true, scopes: SCOPES };
  const key = await storage.apiKeys.get(keyId);
  return key === undefined ? { stands: false, scopes: [] } : { stands: keyIsActive(key, now), scopes: key.scopes };
}

/**
 * Why the endpoint may not be sent an event of `type` now, or null when it may: it no longer
 * subscribes to the type, or the key that owns it (holding `scopes`) cannot read it.
 */
export function refusal(webhook: Pick<Webhook, 'keyId' | 'events'>, scopes: readonly Scope[], type: EventType): string | null {
  if (webhook.events !== null && !webhook.events.includes(type)) return `the endpoint no longer subscribes to ${type}`;
  if (!mayRead(scopes, type))
    return `the API key that owns the endpoint (key ${webhook.keyId}) lacks ${readScopeOf(type)}, the scope that reads ${type} events`;
  return null;
}
