import type { Event } from '../../events/event.schemas.ts';
import { EVENT_COLUMNS, toEvent, type EventRow } from '../rows.ts';
import type { EventQuery, EventRepository, EventTx, NewEvent } from '../../events/event.store.ts';
import { first, perDialect, type Dialect, type SqlDb } from './sql.db.ts';

// The feed's order is (xid, id): the writing transactions' order, then the order within each
// (docs/events.md). Only settled transactions are read, so an event never appears behind one a
// reader has already passed. A NULL type switches the filter off; (type, xid, id) and (xid, id)
// serve both forms. The position of `after` is its event's (xid, id), looked up first.
const PAGE = (d: Dialect, from: string) =>
  `SELECT ${EVENT_COLUMNS} FROM events WHERE ${from} AND (CAST($2 AS TEXT) IS NULL OR type = $2) AND ${d.settled('xid')} ORDER BY xid, id LIMIT $3`;
const AFTER = perDialect((d) => PAGE(d, '(xid, id) > (CAST($4 AS xid8), $1)'));
// An event no longer kept (purged) or never written: the events with greater ids follow it.
const AFTER_UNKNOWN = perDialect((d) => PAGE(d, 'id > $1'));

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
    const rows =
      at === undefined ? this.#db.all<EventRow>(AFTER_UNKNOWN(this.#d), params) : this.#db.all<EventRow>(AFTER(this.#d), [...params, String(at.xid)]);
    return (await rows).map(toEvent);
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
