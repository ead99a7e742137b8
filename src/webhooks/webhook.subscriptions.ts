// Where webhook deliveries come from: the outbox (events/event.outbox.ts) publishes the events of
// every write here, in the write's own transaction. And who may subscribe to what: an endpoint
// receives full resources, so subscribing takes the scopes that read them.
import { AppError } from '../errors.ts';
import { readScopeOf } from '../events/event.access.ts';
import { EVENT_TYPES, eventPetId, type EventType } from '../events/event.schemas.ts';
import type { Scope } from '../keys/key.types.ts';
import type { NewEvent } from '../events/event.store.ts';
import type { Transaction } from '../storage/storage.ts';

/**
 * Refuses (403 insufficient_scope) an endpoint subscribed to `events` (null: every type, future
 * ones included) for a key that cannot read what those events carry: a subscription never reads
 * more than the key that makes it.
 */
export function assertMaySubscribe(scopes: readonly Scope[], events: readonly EventType[] | null): void {
  const types = events ?? EVENT_TYPES;
  const missing = [...new Set(types.map(readScopeOf))].filter((s) => !scopes.includes(s));
  if (missing.length === 0) return;
  const what = events === null ? 'every event type' : types.filter((t) => missing.includes(readScopeOf(t))).join(', ');
  throw new AppError(
    'insufficient_scope',
    `this API key lacks ${missing.join(' and ')}: subscribing to ${what} takes the scope that reads what those events carry (pet.health.*: health:read; the other pet.* and category.*: pets:read; order.* and hold.*: orders:read; customer.*: customers:read)`,
    { 'www-authenticate': `Bearer realm="petstore", error="insufficient_scope", scope="${missing.join(' ')}"` },
  );
}

/**
 * Records the events in the feed, and owes each a first attempt, due at once, from every enabled
 * endpoint subscribed to its type: an endpoint created without `events` (or given `events: null`)
 * takes every type, future ones included; one with a list takes the types listed (the relation
 * webhook_subscriptions, written with the endpoint). A disabled endpoint is owed nothing: enabled
 * again, it resumes with the events recorded from then on. From there webhook.deliveries.ts moves
 * each attempt along. Each event is recorded with the animal it concerns (eventPetId), by which the
 * feed finds an animal's history.
 */
export function publish(tx: Transaction, events: readonly NewEvent[], at: Date): Promise<void> {
  return tx.events.publish(
    events.map((e) => ({ ...e, petId: eventPetId(e) })),
    at,
  );
}
