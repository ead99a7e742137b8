import type { Event, EventType } from '../../events/event.schemas.ts';
import { EVENT_COLUMNS, toEvent, type EventRow } from '../rows.ts';
import type { EventQuery, EventRepository, EventTx, NewEvent } from '../../events/event.store.ts';
import { first, perDialect, type Dialect, type SqlDb } from './sql.db.ts';
import { SUBSCRIBED } from './sql.webhooks.ts';

// The feed's order is (xid, id): the writing transactions' order, then the order within each
// (docs/events.md). Only settled transactions are read, so an event never appears behind one a
// reader has already passed. A NULL type switches the filter off; (type, xid, id) and (xid, id)
// serve both forms. The position of `after` is its event's (xid, id), looked up first. A list of
// types (the ones the reader may read) and an animal (`pet_id`, walked on (pet_id, xid, id):
// migration 16) are further forms of each, their parameters after the others, so the usual read,
// of every type, keeps its plain plan.
const PAGE = (d: Dialect, from: string, next: number, types: boolean, pet: boolean) => {
  const typeParam = types ? `$${next++}` : '';
  const petParam = pet ? `$${next}` : '';
  return `SELECT ${EVENT_COLUMNS} FROM events WHERE ${pet ? `pet_id = ${petParam} AND ` : ''}${from} AND (CAST($2 AS TEXT) IS NULL OR type = $2)${types ? ` AND type IN (SELECT t.item FROM ${d.items(typeParam, 't')})` : ''} AND ${d.settled('xid')} ORDER BY xid, id LIMIT $3`;
};
/** The four forms of a page statement (AFTER is exported for its plan test): index 1 with a list of types, 2 with an animal, 3 with both. */
const FORMS = (from: string, next: number) => [0, 1, 2, 3].map((form) => perDialect((d) => PAGE(d, from, next, (form & 1) === 1, (form & 2) === 2)));
export const AFTER = FORMS('(xid, id) > (CAST($4 AS xid8), $1)', 5);
// An event no longer kept (purged) or never written: the events with greater ids follow it.
const AFTER_UNKNOWN = FORMS('id > $1', 4);

export class SqlEvents implements EventRepository {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async list(q: EventQuery): Promise<Event[]> {
    const at = q.afterId === 0 ? { xid: 0 } : await first<{ xid: string | number }>(this.#db, 'SELECT xid FROM events WHERE id = $1', [q.afterId]);
    const params = [q.afterId, q.type ?? null, q.limit];
    const form = (q.types === undefined ? 0 : 1) + (q.petId === undefined ? 0 : 2);
    const extra = [...(q.types === undefined ? [] : [q.types]), ...(q.petId === undefined ? [] : [q.petId])];
    const rows =
      at === undefined
        ? this.#db.all<EventRow>(AFTER_UNKNOWN[form](this.#d), [...params, ...extra])
        : this.#db.all<EventRow>(AFTER[form](this.#d), [...params, String(at.xid), ...extra]);
    return (await rows).map(toEvent);
  }

  purge(before: Date): Promise<number> {
    return this.#db.run('DELETE FROM events WHERE created_at < $1', [before.toISOString()]);
  }
}

// PostgreSQL, one statement: the events, then their first attempts, both with the writing
// transaction's id (the columns' default, pg_current_xact_id()). Inserting a delivery takes a KEY
// SHARE lock on its endpoint's row, which the dispatchers' claims (FOR NO KEY UPDATE) do not block.
const PUBLISH = perDialect(
  (d) => `WITH e AS (
    INSERT INTO events (type, data, created_at, pet_id, actor, changes)
    SELECT t.item, x.item, CAST($3 AS TIMESTAMPTZ), CAST(NULLIF(p.item, '') AS BIGINT), NULLIF(a.item, ''), NULLIF(c.item, '')
    FROM ${d.items('$1', 't')} JOIN ${d.items('$2', 'x')} ON x.n = t.n JOIN ${d.items('$4', 'p')} ON p.n = t.n
      JOIN ${d.items('$5', 'a')} ON a.n = t.n JOIN ${d.items('$6', 'c')} ON c.n = t.n ORDER BY t.n
    RETURNING id, type
  )
  INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at)
  SELECT w.id, 'attempt', e.id, 1, 'pending', CAST($3 AS TIMESTAMPTZ), CAST($3 AS TIMESTAMPTZ) FROM e JOIN webhooks w ON ${SUBSCRIBED('e.type')}
  ORDER BY e.id, w.id`,
);
// SQLite (no INSERT in a WITH), two statements per event.
const INSERT_EVENT = 'INSERT INTO events (type, data, created_at, pet_id, actor, changes) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id';
const FIRST_ATTEMPTS = `INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at)
  SELECT w.id, 'attempt', $1, 1, 'pending', $2, $2 FROM webhooks w WHERE ${SUBSCRIBED('$3')}`;

const json = (value: object | undefined): string | undefined => (value === undefined ? undefined : JSON.stringify(value));

export class SqlEventTx implements EventTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  /**
   * PostgreSQL writers do not wait for each other: an identity value is taken at insert, not at
   * commit, so ids alone do not follow commit order; readers order by the writing transaction's id
   * instead and read only what Dialect.settled lets through (docs/events.md). SQLite has one writer
   * at a time: ids follow commit order by themselves (xid stays 0).
   */
  async publish(events: readonly NewEvent[], at: Date): Promise<void> {
    const stamp = at.toISOString();
    if (this.#d.dataModifyingCte) {
      // The animal of each event as text ('' for none): a list parameter's items are text (Dialect.items).
      const pets = events.map((e) => String(e.petId ?? ''));
      const actors = events.map((e) => json(e.actor) ?? '');
      const changes = events.map((e) => json(e.changes) ?? '');
      await this.#db.run(PUBLISH(this.#d), [events.map((e) => e.type), events.map((e) => JSON.stringify(e.data)), stamp, pets, actors, changes]);
      return;
    }
    for (const e of events) {
      const [{ id }] = await this.#db.all<{ id: number }>(INSERT_EVENT, [
        e.type,
        JSON.stringify(e.data),
        stamp,
        e.petId ?? null,
        json(e.actor) ?? null,
        json(e.changes) ?? null,
      ]);
      await this.#db.run(FIRST_ATTEMPTS, [id, stamp, e.type]);
    }
  }

  async typeOf(sequence: number): Promise<EventType | undefined> {
    return (await first<{ type: EventType }>(this.#db, 'SELECT type FROM events WHERE id = $1', [sequence]))?.type;
  }
}
