import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Category } from '../../categories/category.schemas.ts';
import type { CategoryRepository, WriteContext } from '../storage.ts';
import { duplicateCategory } from '../rules.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import type { SqliteOutbox } from './sqlite.outbox.ts';
import { isConstraint } from './sqlite.tx.ts';

const toCategory = (r: Record<string, unknown>): Category => ({ id: r.id as number, name: r.name as string });

export class SqliteCategories implements CategoryRepository {
  readonly #writes: GroupCommit;
  readonly #outbox: SqliteOutbox;
  readonly #list: StatementSync;
  readonly #insert: StatementSync;

  constructor(db: DatabaseSync, writes: GroupCommit, outbox: SqliteOutbox) {
    this.#writes = writes;
    this.#outbox = outbox;
    this.#list = db.prepare('SELECT id, name FROM categories ORDER BY id');
    this.#insert = db.prepare('INSERT INTO categories (name) VALUES (?) RETURNING id, name');
  }

  async list(): Promise<Category[]> {
    return this.#list.all().map(toCategory);
  }

  async create(name: string, ctx: WriteContext<Category>): Promise<Category> {
    try {
      return await this.#writes.run(() => {
        const category = toCategory(this.#insert.get(name)!);
        return this.#outbox.record(ctx, category, [{ type: 'category.created', data: category }]);
      });
    } catch (err) {
      if (isConstraint(err, 'UNIQUE')) throw duplicateCategory(name);
      throw err;
    }
  }
}
