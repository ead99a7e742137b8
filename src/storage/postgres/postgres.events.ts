import type { Event } from '../../events/event.schemas.ts';
import { EVENT_COLUMNS, toEvent, type EventRow } from '../rows.ts';
import type { EventQuery, EventRepository } from '../storage.ts';
import type { PgDb } from './postgres.db.ts';

export class PostgresEvents implements EventRepository {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  async list(q: EventQuery): Promise<Event[]> {
    const rows = await this.#db.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE id > $1 AND ($2::text IS NULL OR type = $2) ORDER BY id LIMIT $3`, [
      q.afterId,
      q.type ?? null,
      q.limit,
    ]);
    return rows.map(toEvent);
  }

  async purge(before: Date): Promise<number> {
    const [row] = await this.#db.query<{ n: number }>(
      'WITH gone AS (DELETE FROM events WHERE created_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone',
      [before.toISOString()],
    );
    return row.n;
  }
}
