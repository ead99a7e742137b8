import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Event } from '../../events/event.schemas.ts';
import { EVENT_COLUMNS, toEvent, type EventRow } from '../rows.ts';
import type { EventQuery, EventRepository } from '../storage.ts';

export class SqliteEvents implements EventRepository {
  readonly #list: StatementSync;
  readonly #purge: StatementSync;

  constructor(db: DatabaseSync) {
    // A NULL type switches the filter off; (type, id) and the primary key serve both forms.
    this.#list = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE id > :after AND (:type IS NULL OR type = :type) ORDER BY id LIMIT :limit`);
    this.#purge = db.prepare('DELETE FROM events WHERE created_at < ?');
  }

  async list(q: EventQuery): Promise<Event[]> {
    return (this.#list.all({ after: q.afterId, type: q.type ?? null, limit: q.limit }) as unknown as EventRow[]).map(toEvent);
  }

  async purge(before: Date): Promise<number> {
    return Number(this.#purge.run(before.toISOString()).changes);
  }
}
