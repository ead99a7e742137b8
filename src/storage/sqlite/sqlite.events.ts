import type { Event } from '../../events/event.schemas.ts';
import { EVENT_COLUMNS, toEvent, type EventRow } from '../rows.ts';
import type { EventQuery, EventRepository, EventTx, NewEvent, RecordedEvent } from '../storage.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import type { Sql } from './sqlite.tx.ts';

// A NULL type switches the filter off; (type, id) and the primary key serve both forms.
const LIST = `SELECT ${EVENT_COLUMNS} FROM events WHERE id > :after AND (:type IS NULL OR type = :type) ORDER BY id LIMIT :limit`;
const INSERT = 'INSERT INTO events (type, data, created_at) VALUES (?, ?, ?) RETURNING id';

export class SqliteEvents implements EventRepository {
  readonly #writes: GroupCommit;
  readonly #sql: Sql;

  constructor(sql: Sql, writes: GroupCommit) {
    this.#writes = writes;
    this.#sql = sql;
  }

  list(q: EventQuery): Promise<Event[]> {
    return this.#writes.outside(() => this.#sql.all<EventRow>(LIST, { after: q.afterId, type: q.type ?? null, limit: q.limit }).map(toEvent));
  }

  purge(before: Date): Promise<number> {
    return this.#writes.outside(() => this.#sql.run('DELETE FROM events WHERE created_at < ?', before.toISOString()));
  }
}

export class SqliteEventTx implements EventTx {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** One writer at a time holds the database: ids follow commit order by themselves. */
  async insert(events: readonly NewEvent[], at: Date): Promise<RecordedEvent[]> {
    const createdAt = at.toISOString();
    return events.map((e) => ({ sequence: this.#sql.get<{ id: number }>(INSERT, e.type, JSON.stringify(e.data), createdAt)!.id, type: e.type }));
  }

  async exists(sequence: number): Promise<boolean> {
    return this.#sql.get('SELECT 1 FROM events WHERE id = ?', sequence) !== undefined;
  }
}
