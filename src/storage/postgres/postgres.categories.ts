import type { Category } from '../../categories/category.schemas.ts';
import { CATEGORY_COLUMNS as COLUMNS, toCategory, type CategoryRow } from '../rows.ts';
import type { CategoryRepository, CategoryTx } from '../storage.ts';
import { sqlState, type PgDb, type Query } from './postgres.db.ts';

const UNIQUE_VIOLATION = '23505';
// Only live categories are read; a deleted one (deleted_at set) is absent everywhere.
const LIVE = 'deleted_at IS NULL';

/**
 * The live category row, locked FOR KEY SHARE until the transaction ends — the lock the foreign
 * key takes as well, and one that removal's FOR UPDATE waits for (and vice versa): a pet can
 * never be added to, or moved into, a category deleted at the same moment.
 */
export const LIVE_CATEGORY = `SELECT id FROM categories WHERE id = $1 AND ${LIVE} FOR KEY SHARE`;

export class PostgresCategories implements CategoryRepository {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  async list(): Promise<Category[]> {
    return (await this.#db.query<CategoryRow>(`SELECT ${COLUMNS} FROM categories WHERE ${LIVE} ORDER BY id`)).map(toCategory);
  }

  async get(id: number): Promise<Category | undefined> {
    const [row] = await this.#db.query<CategoryRow>(`SELECT ${COLUMNS} FROM categories WHERE id = $1 AND ${LIVE}`, [id]);
    return row && toCategory(row);
  }
}

export class PostgresCategoryTx implements CategoryTx {
  readonly #query: Query;

  constructor(query: Query) {
    this.#query = query;
  }

  async lock(id: number, purpose: 'rename' | 'remove'): Promise<Category | undefined> {
    // FOR UPDATE conflicts with the FOR KEY SHARE that a pet created in, or moved into, the
    // category takes on it (LIVE_CATEGORY): a pet being added now commits before removal checks
    // for live pets (which then sees it), or waits and then finds the category gone.
    const lock = purpose === 'remove' ? 'FOR UPDATE' : 'FOR NO KEY UPDATE';
    const [row] = await this.#query<CategoryRow>(`SELECT ${COLUMNS} FROM categories WHERE id = $1 AND ${LIVE} ${lock}`, [id]);
    return row && toCategory(row);
  }

  async keepLive(id: number): Promise<boolean> {
    return (await this.#query(LIVE_CATEGORY, [id])).length > 0;
  }

  async insert(name: string): Promise<Category | undefined> {
    // categories_name_live (lower(name) among live ones) decides; a name taken meanwhile by a
    // transaction not yet committed is waited for.
    const [row] = await this.#query<CategoryRow>(
      `INSERT INTO categories (name) VALUES ($1) ON CONFLICT (lower(name)) WHERE ${LIVE} DO NOTHING RETURNING ${COLUMNS}`,
      [name],
    );
    return row && toCategory(row);
  }

  async rename(id: number, name: string): Promise<Category | undefined> {
    // An UPDATE has no ON CONFLICT: the unique violation is caught within a savepoint, so that the
    // transaction goes on.
    await this.#query('SAVEPOINT rename');
    try {
      const [row] = await this.#query<CategoryRow>(`UPDATE categories SET name = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, name]);
      await this.#query('RELEASE SAVEPOINT rename');
      return toCategory(row);
    } catch (err) {
      if (sqlState(err) !== UNIQUE_VIOLATION) throw err;
      await this.#query('ROLLBACK TO SAVEPOINT rename');
      return undefined;
    }
  }

  async remove(id: number, at: Date): Promise<void> {
    await this.#query('UPDATE categories SET deleted_at = $2 WHERE id = $1', [id, at.toISOString()]);
  }
}
