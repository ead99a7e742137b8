import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Pet, PetStatus } from '../../pets/pet.schemas.ts';
import type { Order, OrderStatus } from '../../store/order.schemas.ts';
import { assertFound, assertIfMatch, assertPetOrderable, assertTransition, petStatusFor } from '../rules.ts';
import type { NewEvent } from '../outbox.ts';
import type { ConditionalWrite, OrderQuery, OrderRepository, WriteContext } from '../storage.ts';
import { ORDER_COLUMNS as COLUMNS, PET_COLUMNS, toOrder, toPet, type OrderRow, type PetRow } from '../rows.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import type { SqliteOutbox } from './sqlite.outbox.ts';

export class SqliteOrders implements OrderRepository {
  readonly #writes: GroupCommit;
  readonly #outbox: SqliteOutbox;
  readonly #petStatus: StatementSync;
  readonly #setPetStatus: StatementSync;
  readonly #insert: StatementSync;
  readonly #get: StatementSync;
  readonly #update: StatementSync;
  readonly #list: StatementSync;

  constructor(db: DatabaseSync, writes: GroupCommit, outbox: SqliteOutbox) {
    this.#writes = writes;
    this.#outbox = outbox;
    // A withdrawn pet cannot be ordered: it is unknown (unknown_pet), like one that never existed.
    this.#petStatus = db.prepare('SELECT status FROM pets WHERE id = ? AND deleted_at IS NULL');
    this.#setPetStatus = db.prepare(`UPDATE pets SET status = ? WHERE id = ? AND status <> ? RETURNING ${PET_COLUMNS}`);
    this.#insert = db.prepare(`INSERT INTO orders (pet_id, status, created_at, updated_at) VALUES (?, 'placed', ?, ?) RETURNING ${COLUMNS}`);
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM orders WHERE id = ?`);
    this.#update = db.prepare(`UPDATE orders SET status = ?, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`);
    // NULL parameters switch a filter off; the planner still uses the primary key for id > ?.
    this.#list = db.prepare(
      `SELECT ${COLUMNS} FROM orders WHERE id > :after AND (:status IS NULL OR status = :status) AND (:pet IS NULL OR pet_id = :pet) ORDER BY id LIMIT :limit`,
    );
  }

  async place(petId: number, ctx: WriteContext<Order>): Promise<Order> {
    // One write transaction (GroupCommit): the check and both writes happen under the database
    // write lock, so no interleaving can order one pet twice.
    return this.#writes.run(() => {
      const pet = this.#petStatus.get(petId) as { status: PetStatus } | undefined;
      assertPetOrderable(petId, pet?.status);
      const at = ctx.now.toISOString();
      const order = toOrder(this.#insert.get(petId, at, at) as unknown as OrderRow);
      return this.#outbox.record(ctx, order, [{ type: 'order.placed', data: order }, ...this.#setPet(petId, petStatusFor('placed'))]);
    });
  }

  /** Sets the pet's status; its pet.updated event when the status really changed. */
  #setPet(petId: number, status: PetStatus): NewEvent[] {
    const row = this.#setPetStatus.get(status, petId, status) as PetRow | undefined;
    const pet: Pet | undefined = row && toPet(row);
    return pet ? [{ type: 'pet.updated', data: pet }] : [];
  }

  async get(id: number): Promise<Order | undefined> {
    const row = this.#get.get(id) as OrderRow | undefined;
    return row && toOrder(row);
  }

  async list(q: OrderQuery): Promise<Order[]> {
    const rows = this.#list.all({ after: q.afterId, status: q.status ?? null, pet: q.petId ?? null, limit: q.limit });
    return (rows as unknown as OrderRow[]).map(toOrder);
  }

  async transition(id: number, to: OrderStatus, ctx: ConditionalWrite<Order>): Promise<Order> {
    return this.#writes.run(() => {
      const current = this.#get.get(id) as OrderRow | undefined;
      assertFound(`order ${id}`, current);
      assertIfMatch(`order ${id}`, ctx.ifMatch, toOrder(current));
      assertTransition(id, current, to);
      const order = toOrder(this.#update.get(to, ctx.now.toISOString(), id) as unknown as OrderRow);
      return this.#outbox.record(ctx, order, [{ type: `order.${to}`, data: order }, ...this.#setPet(current.pet_id, petStatusFor(to))]);
    });
  }
}
