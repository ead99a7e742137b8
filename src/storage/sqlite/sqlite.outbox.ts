import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { CLAIM_LOST, eventRows, type NewEvent } from '../outbox.ts';
import type { WriteContext } from '../storage.ts';

/**
 * What every write records inside its own transaction besides the change itself (see
 * WriteContext): the response of an Idempotency-Key request, then its events and, for each event,
 * the first delivery attempt to every enabled webhook endpoint subscribed to its type — so no
 * event is ever without the deliveries it owes (at least once, never lost).
 */
export class SqliteOutbox {
  readonly #insertEvent: StatementSync;
  readonly #insertDeliveries: StatementSync;
  readonly #completeClaim: StatementSync;

  constructor(db: DatabaseSync) {
    this.#insertEvent = db.prepare('INSERT INTO events (type, data, created_at) VALUES (?, ?, ?) RETURNING id');
    // `events` holds space-separated types, or NULL for every type.
    this.#insertDeliveries = db.prepare(
      `INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at)
       SELECT id, 'attempt', :event, 1, 'pending', :at, :at FROM webhooks
       WHERE enabled = 1 AND (events IS NULL OR ' ' || events || ' ' LIKE '% ' || :type || ' %')`,
    );
    this.#completeClaim = db.prepare(
      'UPDATE idempotency_keys SET status = ?, body = ?, location = ? WHERE subject = ? AND operation = ? AND key = ? AND status IS NULL',
    );
  }

  /** Call inside the write's transaction; returns `result`. Throws (rolling the write back) if the claim is gone. */
  record<T>(ctx: WriteContext<T>, result: T, events: readonly NewEvent[]): T {
    if (ctx.idempotency) {
      const { id, respond } = ctx.idempotency;
      const r = respond(result);
      const changed = this.#completeClaim.run(r.status, r.body, r.location, id.subject, id.operation, id.key).changes;
      if (Number(changed) !== 1) throw new Error(CLAIM_LOST);
    }
    const at = ctx.now.toISOString();
    const { types, data } = eventRows(events);
    for (let i = 0; i < types.length; i++) {
      const { id } = this.#insertEvent.get(types[i], data[i], at) as { id: number };
      this.#insertDeliveries.run({ event: id, at, type: types[i] });
    }
    return result;
  }
}
