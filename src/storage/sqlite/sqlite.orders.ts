import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { PetStatus } from '../../pets/pet.schemas.ts';
import type { Order, OrderStatus } from '../../store/order.schemas.ts';
import { assertPetOrderable, assertTransition, petStatusFor } from '../rules.ts';
import type { OrderQuery, OrderRepository } from '../storage.ts';
import { ORDER_COLUMNS as COLUMNS, toOrder, type OrderRow } from '../rows.ts';
import { transaction } from './sqlite.tx.ts';

export class SqliteOrders implements OrderRepository {
  readonly #db: DatabaseSync;
  readonly #petStatus: StatementSync;
  readonly #setPetStatus: StatementSync;
  readonly #insert: StatementSync;
  readonly #get: StatementSync;
  readonly #update: StatementSync;
  readonly #list: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#petStatus = db.prepare('SELECT status FROM pets WHERE id = ?');
    this.#setPetStatus = db.prepare('UPDATE pets SET status = ? WHERE id = ?');
    this.#insert = db.prepare(`INSERT INTO orders (pet_id, status, created_at, updated_at) VALUES (?, 'placed', ?, ?) RETURNING ${COLUMNS}`);
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM orders WHERE id = ?`);
    this.#update = db.prepare(`UPDATE orders SET status = ?, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`);
    // NULL parameters switch a filter off; the planner still uses the primary key for id > ?.
    this.#list = db.prepare(
      `SELECT ${COLUMNS} FROM orders WHERE id > :after AND (:status IS NULL OR status = :status) AND (:pet IS NULL OR pet_id = :pet) ORDER BY id LIMIT :limit`,
    );
  }

  async place(petId: number, now: Date): Promise<Order> {
    // One IMMEDIATE transaction: the check and both writes happen under the database write lock.
    return transaction(this.#db, () => {
      const pet = this.#petStatus.get(petId) as { status: PetStatus } | undefined;
      assertPetOrderable(petId, pet?.status);
      this.#setPetStatus.run('pending', petId);
      const at = now.toISOString();
      return toOrder(this.#insert.get(petId, at, at) as unknown as OrderRow);
    });
  }

  async get(id: number): Promise<Order | undefined> {
    const row = this.#get.get(id) as OrderRow | undefined;
    return row && toOrder(row);
  }

  async list(q: OrderQuery): Promise<Order[]> {
    const rows = this.#list.all({ after: q.afterId, status: q.status ?? null, pet: q.petId ?? null, limit: q.limit });
    return (rows as unknown as OrderRow[]).map(toOrder);
  }

  async transition(id: number, to: OrderStatus, now: Date): Promise<Order> {
    return transaction(this.#db, () => {
      const current = this.#get.get(id) as OrderRow | undefined;
      assertTransition(id, current, to);
      this.#setPetStatus.run(petStatusFor(to), current.pet_id);
      return toOrder(this.#update.get(to, now.toISOString(), id) as unknown as OrderRow);
    });
  }
}
