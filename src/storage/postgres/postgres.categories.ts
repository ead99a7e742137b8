import type { Category } from '../../categories/category.schemas.ts';
import { duplicateCategory } from '../rules.ts';
import type { CategoryRepository } from '../storage.ts';
import { sqlState, type PgDb } from './postgres.db.ts';

const UNIQUE_VIOLATION = '23505';

export class PostgresCategories implements CategoryRepository {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  list(): Promise<Category[]> {
    return this.#db.query<Category>('SELECT id, name FROM categories ORDER BY id');
  }

  async create(name: string): Promise<Category> {
    try {
      const [row] = await this.#db.query<Category>('INSERT INTO categories (name) VALUES ($1) RETURNING id, name', [name]);
      return row;
    } catch (err) {
      // The unique index on lower(name) is the table's only unique constraint besides the id.
      if (sqlState(err) === UNIQUE_VIOLATION) throw duplicateCategory(name);
      throw err;
    }
  }
}
