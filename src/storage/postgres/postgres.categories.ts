import type { Category } from '../../categories/category.schemas.ts';
import { duplicateCategory } from '../rules.ts';
import type { CategoryRepository, WriteContext } from '../storage.ts';
import { sqlState, type PgDb } from './postgres.db.ts';
import { recordEffects } from './postgres.outbox.ts';

const UNIQUE_VIOLATION = '23505';

export class PostgresCategories implements CategoryRepository {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  list(): Promise<Category[]> {
    return this.#db.query<Category>('SELECT id, name FROM categories ORDER BY id');
  }

  async create(name: string, ctx: WriteContext<Category>): Promise<Category> {
    try {
      return await this.#db.transaction(async (query) => {
        const [category] = await query<Category>('INSERT INTO categories (name) VALUES ($1) RETURNING id, name', [name]);
        return recordEffects(query, ctx, category, [{ type: 'category.created', data: category }]);
      });
    } catch (err) {
      // The unique index on lower(name) is the table's only unique constraint besides the id.
      if (sqlState(err) === UNIQUE_VIOLATION) throw duplicateCategory(name);
      throw err;
    }
  }
}
