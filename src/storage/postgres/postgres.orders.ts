import type { Order, OrderStatus } from '../../store/order.schemas.ts';
import { ORDER_COLUMNS as COLUMNS, toOrder, type OrderRow } from '../rows.ts';
import type { OrderQuery, OrderRepository, OrderTx } from '../storage.ts';
import type { PgDb, Query } from './postgres.db.ts';

export class PostgresOrders implements OrderRepository {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  async get(id: number): Promise<Order | undefined> {
    const [row] = await this.#db.query<OrderRow>(`SELECT ${COLUMNS} FROM orders WHERE id = $1`, [id]);
    return row && toOrder(row);
  }

  async list(q: OrderQuery): Promise<Order[]> {
    // NULL parameters switch a filter off; unnamed statements are planned with the actual values,
    // so the planner still picks the index that fits the filters given.
    const rows = await this.#db.query<OrderRow>(
      `SELECT ${COLUMNS} FROM orders WHERE id > $1 AND ($2::text IS NULL OR status = $2) AND ($3::bigint IS NULL OR pet_id = $3) ORDER BY id LIMIT $4`,
      [q.afterId, q.status ?? null, q.petId ?? null, q.limit],
    );
    return rows.map(toOrder);
  }
}

/**
 * Orders inside a workflow's transaction. The order row lock (FOR UPDATE) makes concurrent
 * transitions of one order (say approve and cancel) run one after the other, the second checking
 * the lifecycle against the status the first committed.
 */
export class PostgresOrderTx implements OrderTx {
  readonly #query: Query;

  constructor(query: Query) {
    this.#query = query;
  }

  async lock(id: number): Promise<Order | undefined> {
    const [row] = await this.#query<OrderRow>(`SELECT ${COLUMNS} FROM orders WHERE id = $1 FOR UPDATE`, [id]);
    return row && toOrder(row);
  }

  async insert(petId: number, status: OrderStatus, at: Date): Promise<Order> {
    const sql = `INSERT INTO orders (pet_id, status, created_at, updated_at) VALUES ($1, $2, $3, $3) RETURNING ${COLUMNS}`;
    return toOrder((await this.#query<OrderRow>(sql, [petId, status, at.toISOString()]))[0]);
  }

  async setStatus(id: number, status: OrderStatus, at: Date): Promise<Order> {
    const sql = `UPDATE orders SET status = $2, updated_at = $3 WHERE id = $1 RETURNING ${COLUMNS}`;
    return toOrder((await this.#query<OrderRow>(sql, [id, status, at.toISOString()]))[0]);
  }

  async exists(petId: number, statuses: readonly OrderStatus[]): Promise<boolean> {
    return (await this.#query('SELECT 1 FROM orders WHERE pet_id = $1 AND status = ANY($2) LIMIT 1', [petId, statuses])).length > 0;
  }
}
