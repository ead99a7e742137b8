// The transactional outbox: what every write records in its own transaction besides the change,
// so that no change is without its event, no event without the deliveries it owes, and no
// committed Idempotency-Key request without its replayable response.
import type { NewEvent, WriteContext } from './event.store.ts';
import type { Storage, Transaction } from '../storage/storage.ts';
import { publish } from '../webhooks/webhook.subscriptions.ts';

/** What a workflow hands back: its result and the events that describe the change, in order. */
export interface Change<T> {
  readonly result: T;
  readonly events: readonly NewEvent[];
}

export const CLAIM_LOST = 'the Idempotency-Key claim of this request is gone (taken over after it was abandoned); nothing was written';

/**
 * Runs `workflow` in one write transaction (Storage.transaction), then records in that same
 * transaction, before it commits: the response of an Idempotency-Key request (made from the
 * result), then the events with their first delivery attempts (webhooks/webhook.subscriptions.ts).
 * Throws (rolling everything back) when the request's claim is gone.
 */
export function write<T>(storage: Storage, ctx: WriteContext<T>, workflow: (tx: Transaction) => Promise<Change<T>>): Promise<T> {
  return storage.transaction(async (tx) => {
    const { result, events } = await workflow(tx);
    if (ctx.idempotency && !(await tx.idempotency.complete(ctx.idempotency.id, ctx.idempotency.respond(result)))) throw new Error(CLAIM_LOST);
    if (events.length > 0) await publish(tx, events, ctx.now);
    return result;
  });
}

/** A change no event describes: a resource left as it was, or one no event type covers (keys, webhook endpoints). */
export const withoutEvents = <T>(result: T): Change<T> => ({ result, events: [] });
