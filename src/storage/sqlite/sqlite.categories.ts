import type { Category } from '../../categories/category.schemas.ts';
import { CATEGORY_COLUMNS as COLUMNS, toCategory, type CategoryRow } from '../rows.ts';
import type { CategoryRepository, CategoryTx } from '../storage.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import { isConstraint, type Sql } from './sqlite.tx.ts';

// Only live categories are read; a deleted one (deleted_at set) is absent everywhere.
const GET = `SELECT ${COLUMNS} FROM categories WHERE id = ? AND deleted_at IS NULL`;

export class SqliteCategories implements CategoryRepository {
  readonly #writes: GroupCommit;
  readonly #sql: Sql;

  constructor(sql: Sql, writes: GroupCommit) {
    this.#writes = writes;
    this.#sql = sql;
  }

  list(): Promise<Category[]> {
    return this.#writes.outside(() => this.#sql.all<CategoryRow>(`SELECT ${COLUMNS} FROM categories WHERE deleted_at IS NULL ORDER BY id`).map(toCategory));
  }

  get(id: number): Promise<Category | undefined> {
    return this.#writes.outside(() => category(this.#sql.get<CategoryRow>(GET, id)));
  }
}

/** Categories inside a write (GroupCommit holds the database's write lock: every read here is a lock). */
export class SqliteCategoryTx implements CategoryTx {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async lock(id: number): Promise<Category | undefined> {
    return category(this.#sql.get<CategoryRow>(GET, id));
  }

  async keepLive(id: number): Promise<boolean> {
    return this.#sql.get(GET, id) !== undefined;
  }

  async insert(name: string): Promise<Category | undefined> {
    return this.#uniqueName(() => this.#sql.get<CategoryRow>(`INSERT INTO categories (name) VALUES (?) RETURNING ${COLUMNS}`, name));
  }

  async rename(id: number, name: string): Promise<Category | undefined> {
    return this.#uniqueName(() => this.#sql.get<CategoryRow>(`UPDATE categories SET name = ? WHERE id = ? RETURNING ${COLUMNS}`, name, id));
  }

  async remove(id: number, at: Date): Promise<void> {
    this.#sql.run('UPDATE categories SET deleted_at = ? WHERE id = ?', at.toISOString(), id);
  }

  /** A statement that sets a name: the unique index on live names refuses a taken one (undefined), undoing that statement only. */
  #uniqueName(write: () => CategoryRow | undefined): Category | undefined {
    try {
      return category(write());
    } catch (err) {
      if (isConstraint(err, 'UNIQUE')) return undefined;
      throw err;
    }
  }
}

const category = (row: CategoryRow | undefined): Category | undefined => row && toCategory(row);
