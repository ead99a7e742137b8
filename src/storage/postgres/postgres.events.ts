import type { Event } from '../../events/event.schemas.ts';
import { EVENT_COLUMNS, toEvent, type EventRow } from '../rows.ts';
import type { EventQuery, EventRepository, EventTx, NewEvent, RecordedEvent } from '../storage.ts';
import type { PgDb, Query } from './postgres.db.ts';

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

// Any fixed 64-bit number works; every instance must use the same one (migrations use another).
const EVENTS_LOCK = 7_290_514_002;
const INSERT = `INSERT INTO events (type, data, created_at)
  SELECT e.type, e.data, $3::timestamptz FROM pg_advisory_xact_lock($4), unnest($1::text[], $2::text[]) WITH ORDINALITY AS e(type, data, n) ORDER BY e.n
  RETURNING id, type`;

export class PostgresEventTx implements EventTx {
  readonly #query: Query;

  constructor(query: Query) {
    this.#query = query;
  }

  /**
   * Event ids must increase in commit order, or a reader paging the feed by id could pass an id
   * whose transaction commits later. An identity value is taken when the row is inserted, not when
   * it commits, so the insert first takes a transaction-scoped advisory lock that every event
   * writer takes: writers that record events commit one after the other from that point on, each
   * holding the lock from its insert to its COMMIT (the outbox records events last, then only their
   * first deliveries).
   */
  async insert(events: readonly NewEvent[], at: Date): Promise<RecordedEvent[]> {
    const rows = await this.#query<{ id: number; type: NewEvent['type'] }>(INSERT, [
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.data)),
      at.toISOString(),
      EVENTS_LOCK,
    ]);
    // RETURNING gives no order; the identity values do.
    return rows.map((r) => ({ sequence: r.id, type: r.type })).sort((a, b) => a.sequence - b.sequence);
  }

  async exists(sequence: number): Promise<boolean> {
    return (await this.#query('SELECT 1 FROM events WHERE id = $1', [sequence])).length > 0;
  }
}
