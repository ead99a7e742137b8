import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Pet, PetStatus } from '../../pets/pet.schemas.ts';
import type { Inventory } from '../../store/inventory.schemas.ts';
import { PET_COLUMNS, toPet, type PetRow } from '../rows.ts';
import type { PetCreate, PetQuery, PetRepository, PetTx } from '../storage.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import { ReadCache, type DatabaseChanges } from './sqlite.read-cache.ts';
import type { Sql } from './sqlite.tx.ts';

type PetTuple = [id: number, name: string, categoryId: number, status: PetStatus];
const fromTuple = (r: PetTuple): Pet => ({ id: r[0], name: r[1], categoryId: r[2], status: r[3] });

// Only live pets are read; a withdrawn one (deleted_at set) is absent everywhere.
const LIVE = 'deleted_at IS NULL';
const GET = `SELECT ${PET_COLUMNS} FROM pets WHERE id = ? AND ${LIVE}`;
// The category must be live: a deleted category's row still satisfies the foreign key.
const INSERT = `INSERT INTO pets (name, category_id, status) SELECT :name, id, :status FROM categories WHERE id = :category AND ${LIVE} RETURNING ${PET_COLUMNS}`;

export class SqlitePets implements PetRepository {
  readonly #writes: GroupCommit;
  readonly #sql: Sql;
  readonly #get: StatementSync;
  readonly #lists: Record<'all' | 'status' | 'category' | 'both', StatementSync>;
  readonly #pages: ReadCache<readonly Pet[]>;
  readonly #byId: ReadCache<Pet>;

  constructor(db: DatabaseSync, sql: Sql, changes: DatabaseChanges, writes: GroupCommit) {
    this.#writes = writes;
    this.#sql = sql;
    // A few thousand pages of at most 100 pets: a few MiB at worst.
    this.#pages = new ReadCache(changes, 2_000);
    // Single pets, for getPet: 10,000 small objects at most.
    this.#byId = new ReadCache(changes, 10_000);
    this.#get = db.prepare(GET);
    this.#get.setReturnArrays(true);
    // One statement per filter combination, each served by its own partial index (migration 5).
    const list = (filter: string) => {
      const statement = db.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE ${LIVE}${filter} AND id > :after ORDER BY id LIMIT :limit`);
      // Rows as arrays: node:sqlite then builds no per-row objects with named keys.
      statement.setReturnArrays(true);
      return statement;
    };
    this.#lists = {
      all: list(''),
      status: list(' AND status = :status'),
      category: list(' AND category_id = :category'),
      both: list(' AND category_id = :category AND status = :status'),
    };
  }

  get(id: number): Promise<Pet | undefined> {
    return this.#writes.outside(() =>
      this.#byId.get(id, () => {
        const row = this.#get.get(id) as unknown as PetTuple | undefined;
        return row && Object.freeze(fromTuple(row));
      }),
    );
  }

  async list(q: PetQuery): Promise<Pet[]> {
    // A hot listing is read once until the database changes (ReadCache); callers get a copy.
    const page = await this.#writes.outside(() =>
      this.#pages.get(`${q.status ?? ''};${q.categoryId ?? ''};${q.afterId};${q.limit}`, () => {
        const which = q.status === undefined ? (q.categoryId === undefined ? 'all' : 'category') : q.categoryId === undefined ? 'status' : 'both';
        const params: Record<string, string | number> = { after: q.afterId, limit: q.limit };
        if (q.status !== undefined) params.status = q.status;
        if (q.categoryId !== undefined) params.category = q.categoryId;
        const rows = this.#lists[which].all(params) as unknown as PetTuple[];
        return Object.freeze(rows.map((r) => Object.freeze(fromTuple(r))));
      }),
    );
    return [...page!];
  }

  inventory(): Promise<Inventory> {
    return this.#writes.outside(() => ({ ...this.#sql.get<Inventory>('SELECT available, pending, sold FROM pet_inventory')! }));
  }
}

/** Pets inside a write (GroupCommit holds the database's write lock: every read here is a lock). */
export class SqlitePetTx implements PetTx {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async lock(id: number): Promise<Pet | undefined> {
    const row = this.#sql.get<PetRow>(GET, id);
    return row && toPet(row);
  }

  async insert(input: PetCreate): Promise<Pet | undefined> {
    const row = this.#sql.get<PetRow>(INSERT, { name: input.name, status: input.status, category: input.categoryId });
    return row && toPet(row);
  }

  async update(pet: Pet): Promise<Pet> {
    const sql = `UPDATE pets SET name = ?, category_id = ?, status = ? WHERE id = ? RETURNING ${PET_COLUMNS}`;
    return toPet(this.#sql.get<PetRow>(sql, pet.name, pet.categoryId, pet.status, pet.id)!);
  }

  async withdraw(id: number, at: Date): Promise<void> {
    this.#sql.run('UPDATE pets SET deleted_at = ? WHERE id = ?', at.toISOString(), id);
  }

  async anyIn(categoryId: number): Promise<boolean> {
    // Served by pets_live_category_id.
    return this.#sql.get(`SELECT 1 FROM pets WHERE category_id = ? AND ${LIVE} LIMIT 1`, categoryId) !== undefined;
  }
}
