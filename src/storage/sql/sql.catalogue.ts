// Pets, categories and orders inside a workflow's transaction, and the category and order reads.
// On PostgreSQL the row locks order concurrent changes: every change of one pet (a PATCH, a
// withdrawal, an order placed for it) queues on the pet's row, every transition of one order on
// the order's, and each then checks what the one before it committed.
import type { Category } from '../../categories/category.schemas.ts';
import type { Pet } from '../../pets/pet.schemas.ts';
import type { Order, OrderStatus } from '../../store/order.schemas.ts';
import { CATEGORY_COLUMNS, ORDER_COLUMNS, PET_COLUMNS, toCategory, toOrder, toPet, type CategoryRow, type OrderRow, type PetRow } from '../rows.ts';
import type { CategoryRepository, CategoryTx, OrderQuery, OrderRepository, OrderTx, PetCreate, PetTx } from '../storage.ts';
import { first, perDialect, type Dialect, type SqlDb } from './sql.db.ts';

// Only live pets and categories are read; a withdrawn or deleted one (deleted_at set) is absent everywhere.
const LIVE = 'deleted_at IS NULL';
/**
 * The live category $1, locked FOR KEY SHARE until the transaction ends — the lock the foreign key
 * takes as well, and one that removal's FOR UPDATE waits for (and vice versa): a pet can never be
 * added to, or moved into, a category deleted at the same moment.
 */
const LIVE_CATEGORY = perDialect((d) => `SELECT id FROM categories WHERE id = $1 AND ${LIVE} ${d.lock('FOR KEY SHARE')}`);
const LOCK_PET = perDialect((d) => `SELECT ${PET_COLUMNS} FROM pets WHERE id = $1 AND ${LIVE} ${d.lock('FOR UPDATE')}`);
// One statement: the category's lock and the insert. The category must be live: a deleted
// category's row still satisfies the foreign key.
const INSERT_PET = perDialect(
  (d) => `WITH c AS (${LIVE_CATEGORY(d)}) INSERT INTO pets (name, category_id, status) SELECT $2, id, $3 FROM c RETURNING ${PET_COLUMNS}`,
);

export class SqlPetTx implements PetTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async lock(id: number): Promise<Pet | undefined> {
    return pet(await first(this.#db, LOCK_PET(this.#d), [id]));
  }

  async insert(input: PetCreate): Promise<Pet | undefined> {
    return pet(await first(this.#db, INSERT_PET(this.#d), [input.categoryId, input.name, input.status]));
  }

  async update(p: Pet): Promise<Pet> {
    const sql = `UPDATE pets SET name = $2, category_id = $3, status = $4 WHERE id = $1 RETURNING ${PET_COLUMNS}`;
    return toPet((await first<PetRow>(this.#db, sql, [p.id, p.name, p.categoryId, p.status]))!);
  }

  async withdraw(id: number, at: Date): Promise<void> {
    await this.#db.run('UPDATE pets SET deleted_at = $2 WHERE id = $1', [id, at.toISOString()]);
  }

  async anyIn(categoryId: number): Promise<boolean> {
    // Served by pets_live_category_id.
    return (await first(this.#db, `SELECT 1 FROM pets WHERE category_id = $1 AND ${LIVE} LIMIT 1`, [categoryId])) !== undefined;
  }
}

const GET_CATEGORY = `SELECT ${CATEGORY_COLUMNS} FROM categories WHERE id = $1 AND ${LIVE}`;
// FOR UPDATE conflicts with the FOR KEY SHARE a pet being put into the category takes: it commits
// before removal checks for live pets (which then sees it), or waits and finds the category gone.
const LOCK_CATEGORY = {
  rename: perDialect((d) => `${GET_CATEGORY} ${d.lock('FOR NO KEY UPDATE')}`),
  remove: perDialect((d) => `${GET_CATEGORY} ${d.lock('FOR UPDATE')}`),
};

export class SqlCategories implements CategoryRepository {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async list(): Promise<Category[]> {
    return (await this.#db.all<CategoryRow>(`SELECT ${CATEGORY_COLUMNS} FROM categories WHERE ${LIVE} ORDER BY id`)).map(toCategory);
  }

  async get(id: number): Promise<Category | undefined> {
    return category(await first(this.#db, GET_CATEGORY, [id]));
  }
}

export class SqlCategoryTx implements CategoryTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async lock(id: number, purpose: 'rename' | 'remove'): Promise<Category | undefined> {
    return category(await first(this.#db, LOCK_CATEGORY[purpose](this.#d), [id]));
  }

  async keepLive(id: number): Promise<boolean> {
    return (await first(this.#db, LIVE_CATEGORY(this.#d), [id])) !== undefined;
  }

  async insert(name: string): Promise<Category | undefined> {
    return category(
      (await this.#d.unlessNameTaken<CategoryRow>(this.#db, `INSERT INTO categories (name) VALUES ($1) RETURNING ${CATEGORY_COLUMNS}`, [name]))?.[0],
    );
  }

  async rename(id: number, name: string): Promise<Category | undefined> {
    const sql = `UPDATE categories SET name = $2 WHERE id = $1 RETURNING ${CATEGORY_COLUMNS}`;
    return category((await this.#d.unlessNameTaken<CategoryRow>(this.#db, sql, [id, name]))?.[0]);
  }

  async remove(id: number, at: Date): Promise<void> {
    await this.#db.run('UPDATE categories SET deleted_at = $2 WHERE id = $1', [id, at.toISOString()]);
  }
}

const GET_ORDER = `SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1`;
const LOCK_ORDER = perDialect((d) => `${GET_ORDER} ${d.lock('FOR UPDATE')}`);
// Served by orders_pet_id_id: a pet has few orders.
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

  async insert(petId: number, status: OrderStatus, at: Date): Promise<Order> {
    const sql = `INSERT INTO orders (pet_id, status, created_at, updated_at) VALUES ($1, $2, $3, $3) RETURNING ${ORDER_COLUMNS}`;
    return toOrder((await first<OrderRow>(this.#db, sql, [petId, status, at.toISOString()]))!);
  }

  async setStatus(id: number, status: OrderStatus, at: Date): Promise<Order> {
    const sql = `UPDATE orders SET status = $2, updated_at = $3 WHERE id = $1 RETURNING ${ORDER_COLUMNS}`;
    return toOrder((await first<OrderRow>(this.#db, sql, [id, status, at.toISOString()]))!);
  }

  async exists(petId: number, statuses: readonly OrderStatus[]): Promise<boolean> {
    return (await first(this.#db, ORDER_IN(this.#d), [petId, statuses])) !== undefined;
  }
}

const pet = (row: PetRow | undefined): Pet | undefined => row && toPet(row);
const category = (row: CategoryRow | undefined): Category | undefined => row && toCategory(row);
const order = (row: OrderRow | undefined): Order | undefined => row && toOrder(row);
