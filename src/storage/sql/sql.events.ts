import type { Event } from '../../events/event.schemas.ts';
import { EVENT_COLUMNS, toEvent, type EventRow } from '../rows.ts';
import type { EventQuery, EventRepository, EventTx, NewEvent } from '../storage.ts';
import { first, type Dialect, type SqlDb } from './sql.db.ts';

export class SqlEvents implements EventRepository {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async list(q: EventQuery): Promise<Event[]> {
    // A NULL type switches the filter off; (type, id) and the primary key serve both forms.
    const sql = `SELECT ${EVENT_COLUMNS} FROM events WHERE id > $1 AND (CAST($2 AS TEXT) IS NULL OR type = $2) ORDER BY id LIMIT $3`;
    return (await this.#db.all<EventRow>(sql, [q.afterId, q.type ?? null, q.limit])).map(toEvent);
  }

  purge(before: Date): Promise<number> {
    return this.#db.run('DELETE FROM events WHERE created_at < $1', [before.toISOString()]);
  }
}

export class SqlEventTx implements EventTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  publish(events: readonly NewEvent[], at: Date): Promise<void> {
    return this.#d.publish(this.#db, events, at);
  }

  async exists(sequence: number): Promise<boolean> {
    return (await first(this.#db, 'SELECT 1 FROM events WHERE id = $1', [sequence])) !== undefined;
  }
}
