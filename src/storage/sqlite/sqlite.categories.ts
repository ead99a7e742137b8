import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Category } from '../../categories/category.schemas.ts';
import type { CategoryRepository } from '../storage.ts';
import { duplicateCategory } from '../rules.ts';
import { isConstraint } from './sqlite.tx.ts';

export class SqliteCategories implements CategoryRepository {
  readonly #list: StatementSync;
  readonly #insert: StatementSync;

  constructor(db: DatabaseSync) {
    this.#list = db.prepare('SELECT id, name FROM categories ORDER BY id');
    this.#insert = db.prepare('INSERT INTO categories (name) VALUES (?) RETURNING id, name');
  }

  async list(): Promise<Category[]> {
    return this.#list.all().map((r) => ({ id: r.id as number, name: r.name as string }));
  }

  async create(name: string): Promise<Category> {
    try {
      const r = this.#insert.get(name)!;
      return { id: r.id as number, name: r.name as string };
    } catch (err) {
      if (isConstraint(err, 'UNIQUE')) throw duplicateCategory(name);
      throw err;
    }
  }
}
