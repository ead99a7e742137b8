import type { Order, OrderStatus } from '../../store/order.schemas.ts';
import { ORDER_COLUMNS as COLUMNS, toOrder, type OrderRow } from '../rows.ts';
import type { OrderQuery, OrderRepository, OrderTx } from '../storage.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import type { Sql } from './sqlite.tx.ts';

const GET = `SELECT ${COLUMNS} FROM orders WHERE id = ?`;
// NULL parameters switch a filter off; the planner still uses the primary key for id > ?.
const LIST = `SELECT ${COLUMNS} FROM orders WHERE id > :after AND (:status IS NULL OR status = :status) AND (:pet IS NULL OR pet_id = :pet) ORDER BY id LIMIT :limit`;

export class SqliteOrders implements OrderRepository {
  readonly #writes: GroupCommit;
  readonly #sql: Sql;

  constructor(sql: Sql, writes: GroupCommit) {
    this.#writes = writes;
    this.#sql = sql;
  }

  get(id: number): Promise<Order | undefined> {
    return this.#writes.outside(() => order(this.#sql.get<OrderRow>(GET, id)));
  }

  list(q: OrderQuery): Promise<Order[]> {
    const params = { after: q.afterId, status: q.status ?? null, pet: q.petId ?? null, limit: q.limit };
    return this.#writes.outside(() => this.#sql.all<OrderRow>(LIST, params).map(toOrder));
  }
}

/** Orders inside a write (GroupCommit holds the database's write lock: every read here is a lock). */
export class SqliteOrderTx implements OrderTx {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async lock(id: number): Promise<Order | undefined> {
    return order(this.#sql.get<OrderRow>(GET, id));
  }

  async insert(petId: number, status: OrderStatus, at: Date): Promise<Order> {
    const sql = `INSERT INTO orders (pet_id, status, created_at, updated_at) VALUES (?, ?, ?, ?) RETURNING ${COLUMNS}`;
    return toOrder(this.#sql.get<OrderRow>(sql, petId, status, at.toISOString(), at.toISOString())!);
  }

  async setStatus(id: number, status: OrderStatus, at: Date): Promise<Order> {
    return toOrder(this.#sql.get<OrderRow>(`UPDATE orders SET status = ?, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`, status, at.toISOString(), id)!);
  }

  async exists(petId: number, statuses: readonly OrderStatus[]): Promise<boolean> {
    // Served by orders_pet_id_id: a pet has few orders.
    const sql = 'SELECT 1 FROM orders WHERE pet_id = ? AND status IN (SELECT value FROM json_each(?)) LIMIT 1';
    return this.#sql.get(sql, petId, JSON.stringify(statuses)) !== undefined;
  }
}

const order = (row: OrderRow | undefined): Order | undefined => row && toOrder(row);
