// Orders: the reads, and an order inside a workflow's transaction. On PostgreSQL every transition
// of one order queues on the order's row lock, and then checks what the one before it committed.
import type { Order, OrderStatus } from '../../store/order.schemas.ts';
import type { OrderPlacement, OrderQuery, OrderRepository, OrderTx } from '../../store/order.store.ts';
import { ORDER_COLUMNS, priceColumns, toOrder, type OrderRow } from '../rows.ts';
import { first, perDialect, type Dialect, type SqlDb } from './sql.db.ts';

const GET_ORDER = `SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1`;
const LOCK_ORDER = perDialect((d) => `${GET_ORDER} ${d.lock('FOR UPDATE')}`);
// Served by orders_pet_id_id: a pet has few orders.
// From orders_customer: a customer has few orders.
const OF_CUSTOMER = `SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = $1 ORDER BY id`;
const ORDER_IN = perDialect((d) => `SELECT 1 FROM orders WHERE pet_id = $1 AND status IN (SELECT t.item FROM ${d.items('$2', 't')}) LIMIT 1`);

export class SqlOrders implements OrderRepository {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async get(id: number): Promise<Order | undefined> {
    return order(await first(this.#db, GET_ORDER, [id]));
  }

  async list(q: OrderQuery): Promise<Order[]> {
    // NULL parameters switch a filter off; the primary key serves id > $1 (PostgreSQL plans an
    // unnamed statement with the actual values, so it still picks the index the filters fit).
    const sql = `SELECT ${ORDER_COLUMNS} FROM orders
      WHERE id > $1 AND (CAST($2 AS TEXT) IS NULL OR status = $2) AND (CAST($3 AS BIGINT) IS NULL OR pet_id = $3) ORDER BY id LIMIT $4`;
    return (await this.#db.all<OrderRow>(sql, [q.afterId, q.status ?? null, q.petId ?? null, q.limit])).map(toOrder);
  }

  async ofCustomer(customerId: number): Promise<Order[]> {
    return (await this.#db.all<OrderRow>(OF_CUSTOMER, [customerId])).map(toOrder);
  }
}

export class SqlOrderTx implements OrderTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async lock(id: number): Promise<Order | undefined> {
    return order(await first(this.#db, LOCK_ORDER(this.#d), [id]));
  }

  async insert(o: OrderPlacement, status: OrderStatus, at: Date): Promise<Order> {
    const sql = `INSERT INTO orders (pet_id, customer_id, status, method, created_at, updated_at, price_amount, price_currency, deposit_amount, deposit_currency)
      VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9) RETURNING ${ORDER_COLUMNS}`;
    const params = [o.petId, o.customerId ?? null, status, o.method, at.toISOString(), ...priceColumns(o.price ?? undefined), ...priceColumns(o.deposit)];
    return toOrder((await first<OrderRow>(this.#db, sql, params))!);
  }

  async ofCustomer(customerId: number): Promise<Order[]> {
    return (await this.#db.all<OrderRow>(OF_CUSTOMER, [customerId])).map(toOrder);
  }

  async setStatus(id: number, status: OrderStatus, at: Date): Promise<Order> {
    const sql = `UPDATE orders SET status = $2, updated_at = $3 WHERE id = $1 RETURNING ${ORDER_COLUMNS}`;
    return toOrder((await first<OrderRow>(this.#db, sql, [id, status, at.toISOString()]))!);
  }

  async exists(petId: number, statuses: readonly OrderStatus[]): Promise<boolean> {
    return (await first(this.#db, ORDER_IN(this.#d), [petId, statuses])) !== undefined;
  }
}

const order = (row: OrderRow | undefined): Order | undefined => row && toOrder(row);
