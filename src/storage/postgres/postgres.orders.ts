import type { PetStatus } from '../../pets/pet.schemas.ts';
import type { NewEvent } from '../outbox.ts';
import type { Order, OrderStatus } from '../../store/order.schemas.ts';
import { assertFound, assertIfMatch, assertPetOrderable, assertTransition, petStatusFor } from '../rules.ts';
import type { ConditionalWrite, OrderQuery, OrderRepository, WriteContext } from '../storage.ts';
import { ORDER_COLUMNS as COLUMNS, PET_COLUMNS, toOrder, toPet, type OrderRow, type PetRow } from '../rows.ts';
import type { PgDb, Query } from './postgres.db.ts';
import { recordEffects } from './postgres.outbox.ts';

export class PostgresOrders implements OrderRepository {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  place(petId: number, ctx: WriteContext<Order>): Promise<Order> {
    // READ COMMITTED + SELECT … FOR UPDATE on the pet row: concurrent orders for one pet (from any
    // instance) queue on that row lock; each waiter then reads the status the winner committed
    // ('pending') and is refused. The pet update and the order insert commit together. A pet
    // withdrawn meanwhile fails the re-checked `deleted_at IS NULL` once the lock is granted, and
    // is then unknown (unknown_pet), like one that never existed.
    return this.#db.transaction(async (query) => {
      const [pet] = await query<{ status: PetStatus }>('SELECT status FROM pets WHERE id = $1 AND deleted_at IS NULL FOR UPDATE', [petId]);
      assertPetOrderable(petId, pet?.status);
      const petEvents = await setPet(query, petId, petStatusFor('placed'));
      const [row] = await query<OrderRow>(`INSERT INTO orders (pet_id, status, created_at, updated_at) VALUES ($1, 'placed', $2, $2) RETURNING ${COLUMNS}`, [
        petId,
        ctx.now.toISOString(),
      ]);
      const order = toOrder(row);
      return recordEffects(query, ctx, order, [{ type: 'order.placed', data: order }, ...petEvents]);
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

  transition(id: number, to: OrderStatus, ctx: ConditionalWrite<Order>): Promise<Order> {
    // READ COMMITTED + SELECT … FOR UPDATE on the order row: concurrent transitions of one order
    // (say approve and cancel) run one after the other, and the second checks the lifecycle against
    // the status the first committed. The pet row is then locked by its UPDATE; locks are always
    // taken order → pet here and pet-only in place(), so the two cannot deadlock.
    return this.#db.transaction(async (query) => {
      const [current] = await query<OrderRow>(`SELECT ${COLUMNS} FROM orders WHERE id = $1 FOR UPDATE`, [id]);
      assertFound(`order ${id}`, current);
      assertIfMatch(`order ${id}`, ctx.ifMatch, toOrder(current));
      assertTransition(id, current, to);
      const petEvents = await setPet(query, current.pet_id, petStatusFor(to));
      const [row] = await query<OrderRow>(`UPDATE orders SET status = $1, updated_at = $2 WHERE id = $3 RETURNING ${COLUMNS}`, [to, ctx.now.toISOString(), id]);
      const order = toOrder(row);
      return recordEffects(query, ctx, order, [{ type: `order.${to}`, data: order }, ...petEvents]);
    });
  }
}

/** Sets the pet's status; its pet.updated event when the status really changed. */
async function setPet(query: Query, petId: number, status: PetStatus): Promise<NewEvent[]> {
  const [row] = await query<PetRow>(`UPDATE pets SET status = $1 WHERE id = $2 AND status <> $1 RETURNING ${PET_COLUMNS}`, [status, petId]);
  return row ? [{ type: 'pet.updated', data: toPet(row) }] : [];
}
