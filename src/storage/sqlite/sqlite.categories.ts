import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Category } from '../../categories/category.schemas.ts';
import { CATEGORY_COLUMNS as COLUMNS, toCategory, type CategoryRow } from '../rows.ts';
import type { CategoryRepository, WriteContext } from '../storage.ts';
import { assertFound, categoryInUse, duplicateCategory } from '../rules.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import type { SqliteOutbox } from './sqlite.outbox.ts';
import { isConstraint } from './sqlite.tx.ts';

// Only live categories are read; a deleted one (deleted_at set) is absent everywhere.
const LIVE = 'deleted_at IS NULL';

export class SqliteCategories implements CategoryRepository {
  readonly #writes: GroupCommit;
  readonly #outbox: SqliteOutbox;
  readonly #list: StatementSync;
  readonly #get: StatementSync;
  readonly #insert: StatementSync;
  readonly #rename: StatementSync;
  readonly #remove: StatementSync;
  readonly #livePet: StatementSync;

  constructor(db: DatabaseSync, writes: GroupCommit, outbox: SqliteOutbox) {
    this.#writes = writes;
    this.#outbox = outbox;
    this.#list = db.prepare(`SELECT ${COLUMNS} FROM categories WHERE ${LIVE} ORDER BY id`);
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM categories WHERE id = ? AND ${LIVE}`);
    this.#insert = db.prepare(`INSERT INTO categories (name) VALUES (?) RETURNING ${COLUMNS}`);
    this.#rename = db.prepare(`UPDATE categories SET name = ? WHERE id = ? RETURNING ${COLUMNS}`);
    this.#remove = db.prepare('UPDATE categories SET deleted_at = ? WHERE id = ?');
    // Served by pets_live_category_id.
    this.#livePet = db.prepare('SELECT 1 FROM pets WHERE category_id = ? AND deleted_at IS NULL LIMIT 1');
  }

  async list(): Promise<Category[]> {
    return (this.#list.all() as unknown as CategoryRow[]).map(toCategory);
  }

  async get(id: number): Promise<Category | undefined> {
    return this.#read(id);
  }

  #read(id: number): Category | undefined {
    const row = this.#get.get(id) as CategoryRow | undefined;
    return row && toCategory(row);
  }

  async create(name: string, ctx: WriteContext<Category>): Promise<Category> {
    return this.#uniqueName(name, () => {
      const category = toCategory(this.#insert.get(name) as unknown as CategoryRow);
      return this.#outbox.record(ctx, category, [{ type: 'category.created', data: category }]);
    });
  }

  async rename(id: number, name: string, ctx: WriteContext<Category>): Promise<Category> {
    return this.#uniqueName(name, () => {
      const current = this.#read(id);
      assertFound(`category ${id}`, current);
      if (current.name === name) return this.#outbox.record(ctx, current, []);
      const category = toCategory(this.#rename.get(name, id) as unknown as CategoryRow);
      return this.#outbox.record(ctx, category, [{ type: 'category.updated', data: category }]);
    });
  }

  async remove(id: number, ctx: WriteContext<void>): Promise<void> {
    return this.#writes.run(() => {
      assertFound(`category ${id}`, this.#read(id));
      if (this.#livePet.get(id) !== undefined) throw categoryInUse(id);
      this.#remove.run(ctx.now.toISOString(), id);
      this.#outbox.record(ctx, undefined, [{ type: 'category.deleted', data: { id } }]);
    });
  }

  /** Runs a write that sets a category's name; the unique index on live names refuses a duplicate. */
  async #uniqueName<T>(name: string, work: () => T): Promise<T> {
    try {
      return await this.#writes.run(work);
    } catch (err) {
      if (isConstraint(err, 'UNIQUE')) throw duplicateCategory(name);
      throw err;
    }
  }
}
