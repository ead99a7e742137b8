// Categories: the reads, and a category inside a workflow's transaction.
import type { Category } from '../../categories/category.schemas.ts';
import type { CategoryRepository, CategoryTx } from '../../categories/category.store.ts';
import { CATEGORY_COLUMNS, toCategory, type CategoryRow } from '../rows.ts';
import { first, LIVE, perDialect, unlessUnique, type Dialect, type SqlDb } from './sql.db.ts';

/**
 * The live category $1, locked FOR KEY SHARE until the transaction ends — the lock the foreign key
 * takes as well, and one that removal's FOR UPDATE waits for (and vice versa): a pet can never be
 * added to, or moved into, a category deleted at the same moment.
 */
export const LIVE_CATEGORY = perDialect((d) => `SELECT id FROM categories WHERE id = $1 AND ${LIVE} ${d.lock('FOR KEY SHARE')}`);

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
      (await unlessUnique<CategoryRow>(this.#db, this.#d, `INSERT INTO categories (name) VALUES ($1) RETURNING ${CATEGORY_COLUMNS}`, [name]))?.[0],
    );
  }

  async rename(id: number, name: string): Promise<Category | undefined> {
    const sql = `UPDATE categories SET name = $2 WHERE id = $1 RETURNING ${CATEGORY_COLUMNS}`;
    return category((await unlessUnique<CategoryRow>(this.#db, this.#d, sql, [id, name]))?.[0]);
  }

  async remove(id: number, at: Date): Promise<void> {
    await this.#db.run('UPDATE categories SET deleted_at = $2 WHERE id = $1', [id, at.toISOString()]);
  }
}

const category = (row: CategoryRow | undefined): Category | undefined => row && toCategory(row);
