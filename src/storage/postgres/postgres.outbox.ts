import { CLAIM_LOST, eventRows, type NewEvent } from '../outbox.ts';
import type { WriteContext } from '../storage.ts';
import type { Query } from './postgres.db.ts';

// Any fixed 64-bit number works; every instance must use the same one (migrations use another).
const EVENTS_LOCK = 7_290_514_002;

/**
 * What every write records inside its own transaction besides the change itself (see
 * WriteContext): the response of an Idempotency-Key request, then its events and, for each event,
 * the first delivery attempt to every enabled webhook endpoint subscribed to its type — so no
 * event is ever without the deliveries it owes (at least once, never lost). Call it last, right
 * before COMMIT.
 *
 * Event ids must increase in commit order, or a reader paging the feed by id could pass an id
 * whose transaction commits later. An identity value is taken when the row is inserted, not when
 * it commits, so the insert first takes a transaction-scoped advisory lock that every event
 * writer takes: writers that record events commit one after the other from that point on, each
 * holding the lock only for its insert and its COMMIT.
 */
export async function recordEffects<T>(query: Query, ctx: WriteContext<T>, result: T, events: readonly NewEvent[]): Promise<T> {
  if (ctx.idempotency) {
    const { id, respond } = ctx.idempotency;
    const r = respond(result);
    const claimed = await query(
      'UPDATE idempotency_keys SET status = $4, body = $5, location = $6 WHERE subject = $1 AND operation = $2 AND key = $3 AND status IS NULL RETURNING 1',
      [id.subject, id.operation, id.key, r.status, r.body, r.location],
    );
    if (claimed.length !== 1) throw new Error(CLAIM_LOST);
  }
  if (events.length > 0) {
    const { types, data } = eventRows(events);
    // One statement: the events, then their deliveries (`events` holds space-separated types, or
    // NULL for every type). Inserting a delivery takes a KEY SHARE lock on its endpoint's row,
    // which the dispatchers' claims (FOR NO KEY UPDATE) do not block.
    await query(
      `WITH e AS (
         INSERT INTO events (type, data, created_at)
         SELECT e.type, e.data, $3::timestamptz FROM pg_advisory_xact_lock($4), unnest($1::text[], $2::text[]) WITH ORDINALITY AS e(type, data, n) ORDER BY e.n
         RETURNING id, type
       )
       INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at)
       SELECT w.id, 'attempt', e.id, 1, 'pending', $3::timestamptz, $3::timestamptz FROM e JOIN webhooks w
         ON w.enabled AND (w.events IS NULL OR ' ' || w.events || ' ' LIKE '% ' || e.type || ' %')`,
      [types, data, ctx.now.toISOString(), EVENTS_LOCK],
    );
  }
  return result;
}
