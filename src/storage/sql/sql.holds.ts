// Holds: the reads, and a hold inside a workflow's transaction. holds_one_live (a unique index on
// the live hold of each pet) refuses a second live hold whatever the workflows do.
import type { Hold, HoldState } from '../../holds/hold.schemas.ts';
import type { HoldPlacement, HoldQuery, HoldRepository, HoldTx } from '../../holds/hold.store.ts';
import { HOLD_COLUMNS, priceColumns, toHold, type HoldRow } from '../rows.ts';
import { first, perDialect, unlessUnique, type Dialect, type SqlDb } from './sql.db.ts';

// NULL parameters switch a filter off; the primary key (or holds_customer) serves the order. An
// animal has few holds (one live at a time), so its filter reads them through the primary key too.
const LIST = `SELECT ${HOLD_COLUMNS} FROM holds
  WHERE id > $1 AND (CAST($2 AS BIGINT) IS NULL OR customer_id = $2) AND (CAST($3 AS TEXT) IS NULL OR state = $3)
    AND (CAST($5 AS BIGINT) IS NULL OR pet_id = $5) ORDER BY id LIMIT $4`;
const OF_CUSTOMER = `SELECT ${HOLD_COLUMNS} FROM holds WHERE customer_id = $1 ORDER BY id`;
const INSERT = `INSERT INTO holds (pet_id, customer_id, state, method, until, deposit_amount, deposit_currency, created_at, updated_at)
  VALUES ($1, $2, 'live', $3, $4, $5, $6, $7, $7) RETURNING ${HOLD_COLUMNS}`;
const LOCK = perDialect((d) => `SELECT ${HOLD_COLUMNS} FROM holds WHERE id = $1 ${d.lock('FOR UPDATE')}`);
const LIVE_FOR = `SELECT ${HOLD_COLUMNS} FROM holds WHERE pet_id = $1 AND state = 'live'`;
const CUSTOMER_LIVE = `SELECT 1 FROM holds WHERE customer_id = $1 AND state = 'live' LIMIT 1`;
const END = `UPDATE holds SET state = $2, updated_at = $3, deposit_refunded = $4, order_id = $5 WHERE id = $1 RETURNING ${HOLD_COLUMNS}`;
// From holds_live_until.
const DUE = `SELECT id, pet_id FROM holds WHERE state = 'live' AND until <= $1 ORDER BY until, id LIMIT $2`;

const hold = (row: HoldRow | undefined): Hold | undefined => row && toHold(row);

export class SqlHolds implements HoldRepository {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async list(q: HoldQuery): Promise<Hold[]> {
    return (await this.#db.all<HoldRow>(LIST, [q.afterId, q.customerId ?? null, q.state ?? null, q.limit, q.petId ?? null])).map(toHold);
  }

  async ofCustomer(customerId: number): Promise<Hold[]> {
    return (await this.#db.all<HoldRow>(OF_CUSTOMER, [customerId])).map(toHold);
  }

  async due(now: Date, limit: number): Promise<{ id: number; petId: number }[]> {
    return (await this.#db.all<{ id: number; pet_id: number }>(DUE, [now.toISOString(), limit])).map((r) => ({ id: r.id, petId: r.pet_id }));
  }
}

export class SqlHoldTx implements HoldTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async insert(h: HoldPlacement, at: Date): Promise<Hold | undefined> {
    const params = [h.petId, h.customerId, h.method, h.until.toISOString(), ...priceColumns(h.deposit), at.toISOString()];
    // The workflow checked the pet's live hold under the pet's lock; the unique index is the backstop.
    const rows = await unlessUnique<HoldRow>(this.#db, this.#d, INSERT, params);
    return rows && toHold(rows[0]);
  }

  async lock(id: number): Promise<Hold | undefined> {
    return hold(await first<HoldRow>(this.#db, LOCK(this.#d), [id]));
  }

  async liveFor(petId: number): Promise<Hold | undefined> {
    return hold(await first<HoldRow>(this.#db, LIVE_FOR, [petId]));
  }

  async customerHasLive(customerId: number): Promise<boolean> {
    return (await first(this.#db, CUSTOMER_LIVE, [customerId])) !== undefined;
  }

  async end(id: number, state: Exclude<HoldState, 'live'>, at: Date, detail: { depositRefunded?: boolean; orderId?: number }): Promise<Hold> {
    // 1 or 0: SQLite keeps booleans as integers, and PostgreSQL reads '1' and '0' as booleans.
    const refunded = detail.depositRefunded === undefined ? null : detail.depositRefunded ? 1 : 0;
    const params = [id, state, at.toISOString(), refunded, detail.orderId ?? null];
    return toHold((await first<HoldRow>(this.#db, END, params))!);
  }
}
