// Where webhook deliveries come from: the outbox (events/event.outbox.ts) hands every event a
// write records to queueFirstAttempts, in the write's own transaction.
import type { RecordedEvent, Transaction } from '../storage/storage.ts';

/**
 * Every event owes a first attempt, due at once, to each enabled endpoint subscribed to its type:
 * an endpoint created without `events` (or given `events: null`) takes every type, future ones
 * included; one with a list takes the types listed (the relation webhook_subscriptions, written
 * with the endpoint). A disabled endpoint is owed nothing: enabled again, it resumes with the
 * events recorded from then on. From here on webhook.deliveries.ts moves each attempt along.
 */
export function queueFirstAttempts(tx: Transaction, events: readonly RecordedEvent[], at: Date): Promise<void> {
  return tx.deliveries.queue(events, at);
}
