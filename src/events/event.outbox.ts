// The transactional outbox: what every write records in its own transaction besides the change,
// so that no change is without its event, no event without the deliveries it owes or its line in
// the activity log, and no committed Idempotency-Key request without its replayable response.
import { currentActor } from '../activity/activity.context.ts';
import type { Actor } from '../activity/activity.schemas.ts';
import type { NewActivity } from '../activity/activity.store.ts';
import type { NewEvent, WriteContext } from './event.store.ts';
import type { Storage, Transaction } from '../storage/storage.ts';
import { publish } from '../webhooks/webhook.subscriptions.ts';
import { eventCarriesChanges, eventResource } from './event.schemas.ts';

/**
 * What a workflow hands back: its result, the events that describe the change, in order, and the
 * activity of a write no event describes (a key issued, a webhook endpoint deleted).
 */
export interface Change<T> {
  readonly result: T;
  readonly events: readonly NewEvent[];
  readonly activity?: readonly NewActivity[];
  /** Who made it, when the request has no principal: a person signing in, or taking up an invitation. */
  readonly actor?: Actor;
}

export const CLAIM_LOST = 'the Idempotency-Key claim of this request is gone (taken over after it was abandoned); nothing was written';

/**
 * Runs `workflow` in one write transaction (Storage.transaction), then records in that same
 * transaction, before it commits: the response of an Idempotency-Key request (made from the
 * result), then the events, each with its actor (the request's: activity/activity.context.ts) and
 * first delivery attempts (webhooks/webhook.subscriptions.ts), then the activity log's entries.
 * Throws (rolling everything back) when the request's claim is gone.
 */
export function write<T>(storage: Storage, ctx: WriteContext<T>, workflow: (tx: Transaction) => Promise<Change<T>>): Promise<T> {
  // Read now, in the request's context: a batched transaction runs the workflow from another.
  const requester = currentActor();
  return storage.transaction(async (tx) => {
    const { result, events, activity = [], actor = requester } = await workflow(tx);
    if (ctx.idempotency && !(await tx.idempotency.complete(ctx.idempotency.id, ctx.idempotency.respond(result)))) throw new Error(CLAIM_LOST);
    if (events.length > 0)
      await publish(
        tx,
        events.map((e) => ({ ...e, actor, changes: eventCarriesChanges(e.type) ? e.changes : undefined })),
        ctx.now,
      );
    const entries = [...events.map((e) => ({ type: e.type, resource: eventResource(e), changes: e.changes })), ...activity];
    if (entries.length > 0) await tx.activity.record(actor, entries, ctx.now);
    return result;
  });
}

/** A change no event describes: a resource left as it was, or one no event type covers (keys, webhook endpoints). */
export const withoutEvents = <T>(result: T): Change<T> => ({ result, events: [] });

/** A change no event describes but the activity log records: `type` done to `resource` (`key.created`, `key:5`). */
export const onlyActivity = <T>(result: T, type: string, resource: string): Change<T> => ({ result, events: [], activity: [{ type, resource }] });
