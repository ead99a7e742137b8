// Where webhook deliveries come from: the outbox (events/event.outbox.ts) publishes the events of
// every write here, in the write's own transaction.
import type { NewEvent, Transaction } from '../storage/storage.ts';

/**
 * Records the events in the feed, and owes each a first attempt, due at once, from every enabled
 * endpoint subscribed to its type: an endpoint created without `events` (or given `events: null`)
 * takes every type, future ones included; one with a list takes the types listed (the relation
 * webhook_subscriptions, written with the endpoint). A disabled endpoint is owed nothing: enabled
 * again, it resumes with the events recorded from then on. From there webhook.deliveries.ts moves
 * each attempt along.
 */
export function publish(tx: Transaction, events: readonly NewEvent[], at: Date): Promise<void> {
  return tx.events.publish(events, at);
}
