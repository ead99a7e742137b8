// Pets, categories and orders inside a workflow's transaction, and the category and order reads.
// On PostgreSQL the row locks order concurrent changes: every change of one pet (a PATCH, a
// withdrawal, an order placed for it) queues on the pet's row, every transition of one order on
// the order's, and each then checks what the one before it committed.
import type { Category } from '../../categories/category.schemas.ts';
import type { Pet } from '../../pets/pet.schemas.ts';
import type { Order, OrderStatus } from '../../store/order.schemas.ts';
import { CATEGORY_COLUMNS, ORDER_COLUMNS, PET_COLUMNS, toCategory, toOrder, toPet, type CategoryRow, type OrderRow, type PetRow } from '../rows.ts';
import type { Price } from '../../pets/pet.schemas.ts';
import type { CategoryRepository, CategoryTx, OrderQuery, OrderRepository, OrderTx, PetCreate, PetIndex, PetTx } from '../storage.ts';
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
  (d) => `WITH c AS (${LIVE_CATEGORY(d)})
    INSERT INTO pets (name, category_id, status, description, tags, price_amount, price_currency, created_at, updated_at, search_text, name_key)
    SELECT $2, id, $3, $4, $5, $6, $7, $8, $8, $9, $10 FROM c RETURNING ${PET_COLUMNS}`,
);
const UPDATE_PET = `UPDATE pets SET name = $2, category_id = $3, status = $4, description = $5, tags = $6, price_amount = $7, price_currency = $8,
  updated_at = $9, search_text = $10, name_key = $11 WHERE id = $1 RETURNING ${PET_COLUMNS}`;
// pet_tags: one row per tag of a live pet, what the tag filter walks (its primary key is (tag, pet_id)).
const ADD_TAGS = perDialect((d) => `INSERT INTO pet_tags (tag, pet_id) SELECT t.item, $1 FROM ${d.items('$2', 't')}`);
const REMOVE_TAGS = perDialect((d) => `DELETE FROM pet_tags WHERE pet_id = $1 AND tag IN (SELECT t.item FROM ${d.items('$2', 't')})`);

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
    const { categoryId, name, status, description, tags, price, at, searchText, nameKey } = input;
    const stamp = at.toISOString();
    const row = await first<PetRow>(this.#db, INSERT_PET(this.#d), [
      categoryId,
      name,
      status,
      description ?? null,
      JSON.stringify(tags),
      ...priceColumns(price),
      stamp,
      searchText,
      nameKey,
    ]);
    if (row === undefined) return undefined;
    if (tags.length > 0) await this.#db.run(ADD_TAGS(this.#d), [row.id, tags]);
    return toPet(row);
  }

  async update(current: Pet, p: Pet, index: PetIndex): Promise<Pet> {
    const params = [p.id, p.name, p.categoryId, p.status, p.description ?? null, JSON.stringify(p.tags), ...priceColumns(p.price), p.updatedAt];
    const row = await first<PetRow>(this.#db, UPDATE_PET, [...params, index.searchText, index.nameKey]);
    const gone = current.tags.filter((t) => !p.tags.includes(t));
    const come = p.tags.filter((t) => !current.tags.includes(t));
    if (gone.length > 0) await this.#db.run(REMOVE_TAGS(this.#d), [p.id, gone]);
    if (come.length > 0) await this.#db.run(ADD_TAGS(this.#d), [p.id, come]);
    return toPet(row!);
  }

  async reindex(id: number, index: PetIndex): Promise<boolean> {
    const sql = 'UPDATE pets SET search_text = $2, name_key = $3 WHERE id = $1 AND search_text IS NULL';
    return (await this.#db.run(sql, [id, index.searchText, index.nameKey])) > 0;
  }

  async withdraw(p: Pet, at: Date): Promise<void> {
    await this.#db.run('UPDATE pets SET deleted_at = $2 WHERE id = $1', [p.id, at.toISOString()]);
    // A withdrawn pet leaves the tag filter's index, as it leaves the search index (a trigger).
    if (p.tags.length > 0) await this.#db.run(REMOVE_TAGS(this.#d), [p.id, p.tags]);
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

  async insert(petId: number, status: OrderStatus, price: Price | null, at: Date): Promise<Order> {
    const sql = `INSERT INTO orders (pet_id, status, created_at, updated_at, price_amount, price_currency) VALUES ($1, $2, $3, $3, $4, $5) RETURNING ${ORDER_COLUMNS}`;
    return toOrder((await first<OrderRow>(this.#db, sql, [petId, status, at.toISOString(), ...priceColumns(price ?? undefined)]))!);
  }

  async setStatus(id: number, status: OrderStatus, at: Date): Promise<Order> {
    const sql = `UPDATE orders SET status = $2, updated_at = $3 WHERE id = $1 RETURNING ${ORDER_COLUMNS}`;
    return toOrder((await first<OrderRow>(this.#db, sql, [id, status, at.toISOString()]))!);
  }

  async exists(petId: number, statuses: readonly OrderStatus[]): Promise<boolean> {
    return (await first(this.#db, ORDER_IN(this.#d), [petId, statuses])) !== undefined;
  }
}

const priceColumns = (price: Price | undefined): [number | null, string | null] => (price === undefined ? [null, null] : [price.amount, price.currency]);
const pet = (row: PetRow | undefined): Pet | undefined => row && toPet(row);
const category = (row: CategoryRow | undefined): Category | undefined => row && toCategory(row);
const order = (row: OrderRow | undefined): Order | undefined => row && toOrder(row);
