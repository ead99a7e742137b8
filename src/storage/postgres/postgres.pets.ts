import type { Pet } from '../../pets/pet.schemas.ts';
import type { Inventory } from '../../store/inventory.schemas.ts';
import { ORDER_IS_OPEN, PET_COLUMNS as COLUMNS, toPet, type PetRow } from '../rows.ts';
import { assertFound, assertIfMatch, patchPet, petHasOpenOrder, unknownCategory } from '../rules.ts';
import type { ConditionalWrite, PetCreate, PetPatch, PetQuery, PetRepository, WriteContext } from '../storage.ts';
import { BatchedLookup } from './postgres.batch.ts';
import type { PgDb, Query } from './postgres.db.ts';
import { recordEffects } from './postgres.outbox.ts';

// Only live pets are read; a withdrawn one (deleted_at set) is absent everywhere.
const LIVE = 'deleted_at IS NULL';

/**
 * The live category row, locked FOR KEY SHARE until the transaction ends — the lock the foreign
 * key takes as well, and one that deleteCategory's FOR UPDATE waits for (and vice versa): a pet
 * can never be added to, or moved into, a category deleted at the same moment.
 */
const LIVE_CATEGORY = `SELECT id FROM categories WHERE id = $1 AND ${LIVE} FOR KEY SHARE`;

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

  create(input: PetCreate, ctx: WriteContext<Pet>): Promise<Pet> {
    return this.#db.transaction(async (query) => {
      const [row] = await query<PetRow>(
        `WITH c AS (${LIVE_CATEGORY}) INSERT INTO pets (name, category_id, status) SELECT $2, id, $3 FROM c RETURNING ${COLUMNS}`,
        [input.categoryId, input.name, input.status],
      );
      if (row === undefined) throw unknownCategory(input.categoryId);
      const pet = toPet(row);
      return recordEffects(query, ctx, pet, [{ type: 'pet.created', data: pet }]);
    });
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

  update(id: number, patch: PetPatch, ctx: ConditionalWrite<Pet>): Promise<Pet> {
    // READ COMMITTED + SELECT … FOR UPDATE on the pet row: concurrent writes of one pet (another
    // PATCH, a DELETE, an order placed for it) queue on that lock, and each then checks If-Match
    // and the open-order rule against what the one before it committed.
    return this.#db.transaction(async (query) => {
      const current = await lockLive(query, id);
      assertIfMatch(`pet ${id}`, ctx.ifMatch, current);
      const { next, changed } = patchPet(current, patch);
      if (!changed) return recordEffects(query, ctx, current, []);
      if (next.categoryId !== current.categoryId && (await query(LIVE_CATEGORY, [next.categoryId])).length === 0) throw unknownCategory(next.categoryId);
      if (next.status !== current.status && (await hasOpenOrder(query, id))) throw petHasOpenOrder(id, 'status');
      const [row] = await query<PetRow>(`UPDATE pets SET name = $2, category_id = $3, status = $4 WHERE id = $1 RETURNING ${COLUMNS}`, [
        id,
        next.name,
        next.categoryId,
        next.status,
      ]);
      const pet = toPet(row);
      return recordEffects(query, ctx, pet, [{ type: 'pet.updated', data: pet }]);
    });
  }

  withdraw(id: number, ctx: ConditionalWrite<void>): Promise<void> {
    // The pet row lock orders this against placeOrder (which locks it too): either the order
    // committed first and is seen open here (409), or the withdrawal committed first and the
    // order, re-reading the row once it gets the lock, finds no live pet (unknown_pet).
    return this.#db.transaction(async (query) => {
      const current = await lockLive(query, id);
      assertIfMatch(`pet ${id}`, ctx.ifMatch, current);
      if (await hasOpenOrder(query, id)) throw petHasOpenOrder(id, 'withdraw');
      await query('UPDATE pets SET deleted_at = $2 WHERE id = $1', [id, ctx.now.toISOString()]);
      await recordEffects(query, ctx, undefined, [{ type: 'pet.deleted', data: { id } }]);
    });
  }

  async inventory(): Promise<Inventory> {
    // One row, one statement: a snapshot of one committed state (READ COMMITTED).
    const [row] = await this.#db.query<Inventory>('SELECT available, pending, sold FROM pet_inventory');
    return { available: row.available, pending: row.pending, sold: row.sold };
  }
}

/** The live pet `id`, locked until the transaction ends; not_found when there is none. */
async function lockLive(query: Query, id: number): Promise<Pet> {
  const [row] = await query<PetRow>(`SELECT ${COLUMNS} FROM pets WHERE id = $1 AND ${LIVE} FOR UPDATE`, [id]);
  const pet = row && toPet(row);
  assertFound(`pet ${id}`, pet);
  return pet;
}

async function hasOpenOrder(query: Query, petId: number): Promise<boolean> {
  return (await query(`SELECT 1 FROM orders WHERE pet_id = $1 AND ${ORDER_IS_OPEN} LIMIT 1`, [petId])).length > 0;
}
