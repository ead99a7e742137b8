import type { PetStatus } from '../../pets/pet.schemas.ts';
import type { Order, OrderStatus } from '../../store/order.schemas.ts';
import { assertPetOrderable, assertTransition, petStatusFor } from '../rules.ts';
import type { OrderQuery, OrderRepository } from '../storage.ts';
import { ORDER_COLUMNS as COLUMNS, toOrder, type OrderRow } from '../rows.ts';
import type { PgDb } from './postgres.db.ts';

export class PostgresOrders implements OrderRepository {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  place(petId: number, now: Date): Promise<Order> {
    // READ COMMITTED + SELECT … FOR UPDATE on the pet row: concurrent orders for one pet (from any
    // instance) queue on that row lock; each waiter then reads the status the winner committed
    // ('pending') and is refused. The pet update and the order insert commit together.
    return this.#db.transaction(async (query) => {
      const [pet] = await query<{ status: PetStatus }>('SELECT status FROM pets WHERE id = $1 FOR UPDATE', [petId]);
      assertPetOrderable(petId, pet?.status);
      await query(`UPDATE pets SET status = 'pending' WHERE id = $1`, [petId]);
      const at = now.toISOString();
      const [row] = await query<OrderRow>(`INSERT INTO orders (pet_id, status, created_at, updated_at) VALUES ($1, 'placed', $2, $2) RETURNING ${COLUMNS}`, [petId, at]);
      return toOrder(row);
    });
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

  transition(id: number, to: OrderStatus, now: Date): Promise<Order> {
    // READ COMMITTED + SELECT … FOR UPDATE on the order row: concurrent transitions of one order
    // (say approve and cancel) run one after the other, and the second checks the lifecycle against
    // the status the first committed. The pet row is then locked by its UPDATE; locks are always
    // taken order → pet here and pet-only in place(), so the two cannot deadlock.
    return this.#db.transaction(async (query) => {
      const [current] = await query<OrderRow>(`SELECT ${COLUMNS} FROM orders WHERE id = $1 FOR UPDATE`, [id]);
      assertTransition(id, current, to);
      await query('UPDATE pets SET status = $1 WHERE id = $2', [petStatusFor(to), current.pet_id]);
      const [row] = await query<OrderRow>(`UPDATE orders SET status = $1, updated_at = $2 WHERE id = $3 RETURNING ${COLUMNS}`, [to, now.toISOString(), id]);
      return toOrder(row);
    });
  }
}
