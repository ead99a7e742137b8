import type { Pet } from '../../pets/pet.schemas.ts';
import type { Inventory } from '../../store/inventory.schemas.ts';
import { PET_COLUMNS as COLUMNS, toPet, type PetRow } from '../rows.ts';
import type { PetCreate, PetQuery, PetRepository, PetTx } from '../storage.ts';
import { BatchedLookup } from './postgres.batch.ts';
import { LIVE_CATEGORY } from './postgres.categories.ts';
import type { PgDb, Query } from './postgres.db.ts';

// Only live pets are read; a withdrawn one (deleted_at set) is absent everywhere.
const LIVE = 'deleted_at IS NULL';

export class PostgresPets implements PetRepository {
  readonly #db: PgDb;
  readonly #byId: BatchedLookup<number, Pet>;
  readonly #pages: BatchedLookup<string, readonly Pet[]>;

  constructor(db: PgDb) {
    this.#db = db;
    // getPet: the reads of one loop turn share a query (BatchedLookup).
    this.#byId = new BatchedLookup<number, Pet>(async (ids) => {
      const rows = await db.query<PetRow>(`SELECT ${COLUMNS} FROM pets WHERE id = ANY($1) AND ${LIVE}`, [ids]);
      return new Map(rows.map((r) => [r.id, Object.freeze(toPet(r))]));
    });
    // Listings: the requests of one loop turn that ask for the same page share its query (a hot
    // first page is asked for by many at once); different pages are separate queries.
    this.#pages = new BatchedLookup<string, readonly Pet[]>(
      async (keys) => new Map(await Promise.all(keys.map(async (k) => [k, await this.#page(k)] as const))),
    );
  }

  get(id: number): Promise<Pet | undefined> {
    return this.#byId.get(id);
  }

  async list(q: PetQuery): Promise<Pet[]> {
    // A copy: the page's rows are shared by every request of the batch that asked for it.
    return [...(await this.#pages.get(`${q.limit} ${q.afterId} ${q.status ?? ''} ${q.categoryId ?? ''}`))!];
  }

  async #page(key: string): Promise<readonly Pet[]> {
    const [limit, afterId, status, categoryId] = key.split(' ');
    // Only the filters given appear in the statement, so the planner sees which partial index
    // (migration 5) serves it.
    const params: unknown[] = [afterId, limit];
    let filters = '';
    if (status !== '') filters += ` AND status = $${params.push(status)}`;
    if (categoryId !== '') filters += ` AND category_id = $${params.push(categoryId)}`;
    const rows = await this.#db.query<PetRow>(`SELECT ${COLUMNS} FROM pets WHERE ${LIVE}${filters} AND id > $1 ORDER BY id LIMIT $2`, params);
    return Object.freeze(rows.map((r) => Object.freeze(toPet(r))));
  }

  async inventory(): Promise<Inventory> {
    // One row, one statement: a snapshot of one committed state (READ COMMITTED).
    const [row] = await this.#db.query<Inventory>('SELECT available, pending, sold FROM pet_inventory');
    return { available: row.available, pending: row.pending, sold: row.sold };
  }
}

const INSERT = `WITH c AS (${LIVE_CATEGORY}) INSERT INTO pets (name, category_id, status) SELECT $2, id, $3 FROM c RETURNING ${COLUMNS}`;

/**
 * Pets inside a workflow's transaction. The pet row lock (FOR UPDATE) orders every change of one
 * pet — a PATCH, a withdrawal, an order placed for it — one after the other, on any instance: each
 * checks what the one before it committed.
 */
export class PostgresPetTx implements PetTx {
  readonly #query: Query;

  constructor(query: Query) {
    this.#query = query;
  }

  async lock(id: number): Promise<Pet | undefined> {
    const [row] = await this.#query<PetRow>(`SELECT ${COLUMNS} FROM pets WHERE id = $1 AND ${LIVE} FOR UPDATE`, [id]);
    return row && toPet(row);
  }

  async insert(input: PetCreate): Promise<Pet | undefined> {
    // One statement: the category's FOR KEY SHARE and the insert.
    const [row] = await this.#query<PetRow>(INSERT, [input.categoryId, input.name, input.status]);
    return row && toPet(row);
  }

  async update(pet: Pet): Promise<Pet> {
    const [row] = await this.#query<PetRow>(`UPDATE pets SET name = $2, category_id = $3, status = $4 WHERE id = $1 RETURNING ${COLUMNS}`, [
      pet.id,
      pet.name,
      pet.categoryId,
      pet.status,
    ]);
    return toPet(row);
  }

  async withdraw(id: number, at: Date): Promise<void> {
    await this.#query('UPDATE pets SET deleted_at = $2 WHERE id = $1', [id, at.toISOString()]);
  }

  async anyIn(categoryId: number): Promise<boolean> {
    // Served by pets_live_category_id.
    return (await this.#query(`SELECT 1 FROM pets WHERE category_id = $1 AND ${LIVE} LIMIT 1`, [categoryId])).length > 0;
  }
}
