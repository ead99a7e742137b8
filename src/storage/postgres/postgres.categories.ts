import type { Category } from '../../categories/category.schemas.ts';
import { CATEGORY_COLUMNS as COLUMNS, toCategory, type CategoryRow } from '../rows.ts';
import { assertFound, categoryInUse, duplicateCategory } from '../rules.ts';
import type { CategoryRepository, WriteContext } from '../storage.ts';
import { sqlState, type PgDb, type Query } from './postgres.db.ts';
import { recordEffects } from './postgres.outbox.ts';

const UNIQUE_VIOLATION = '23505';
// Only live categories are read; a deleted one (deleted_at set) is absent everywhere.
const LIVE = 'deleted_at IS NULL';

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

  create(name: string, ctx: WriteContext<Category>): Promise<Category> {
    return this.#uniqueName(name, async (query) => {
      const [row] = await query<CategoryRow>(`INSERT INTO categories (name) VALUES ($1) RETURNING ${COLUMNS}`, [name]);
      const category = toCategory(row);
      return recordEffects(query, ctx, category, [{ type: 'category.created', data: category }]);
    });
  }

  rename(id: number, name: string, ctx: WriteContext<Category>): Promise<Category> {
    return this.#uniqueName(name, async (query) => {
      const current = await lockLive(query, id, 'FOR NO KEY UPDATE');
      if (current.name === name) return recordEffects(query, ctx, current, []);
      const [row] = await query<CategoryRow>(`UPDATE categories SET name = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, name]);
      const category = toCategory(row);
      return recordEffects(query, ctx, category, [{ type: 'category.updated', data: category }]);
    });
  }

  remove(id: number, ctx: WriteContext<void>): Promise<void> {
    // FOR UPDATE conflicts with the FOR KEY SHARE that createPet and updatePet take on the
    // category they put a pet in: a pet being added now commits before the check below (which
    // then sees it: category_in_use), or waits and then finds the category gone (unknown_category).
    return this.#db.transaction(async (query) => {
      await lockLive(query, id, 'FOR UPDATE');
      // Served by pets_live_category_id.
      if ((await query('SELECT 1 FROM pets WHERE category_id = $1 AND deleted_at IS NULL LIMIT 1', [id])).length > 0) throw categoryInUse(id);
      await query('UPDATE categories SET deleted_at = $2 WHERE id = $1', [id, ctx.now.toISOString()]);
      await recordEffects(query, ctx, undefined, [{ type: 'category.deleted', data: { id } }]);
    });
  }

  /** Runs a write that sets a category's name; the unique index on live names refuses a duplicate. */
  async #uniqueName<T>(name: string, work: (query: Query) => Promise<T>): Promise<T> {
    try {
      return await this.#db.transaction(work);
    } catch (err) {
      // categories_name_live is the table's only unique constraint besides the id.
      if (sqlState(err) === UNIQUE_VIOLATION) throw duplicateCategory(name);
      throw err;
    }
  }
}

async function lockLive(query: Query, id: number, lock: 'FOR UPDATE' | 'FOR NO KEY UPDATE'): Promise<Category> {
  const [row] = await query<CategoryRow>(`SELECT ${COLUMNS} FROM categories WHERE id = $1 AND ${LIVE} ${lock}`, [id]);
  const category = row && toCategory(row);
  assertFound(`category ${id}`, category);
  return category;
}
