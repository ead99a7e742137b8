import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { CLAIM_LOST, eventRows, type NewEvent } from '../outbox.ts';
import type { WriteContext } from '../storage.ts';

/**
 * What every write records inside its own transaction besides the change itself (see
 * WriteContext): the response of an Idempotency-Key request, then its events.
 */
export class SqliteOutbox {
  readonly #insertEvent: StatementSync;
  readonly #completeClaim: StatementSync;

  constructor(db: DatabaseSync) {
    this.#insertEvent = db.prepare('INSERT INTO events (type, data, created_at) VALUES (?, ?, ?)');
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
    for (let i = 0; i < types.length; i++) this.#insertEvent.run(types[i], data[i], at);
    return result;
  }
}
