// The reads every request makes — its key, a pet, a page of pets — batched: the requests of one
// turn of the event loop share a query (BatchedLookup), never a cached answer.
import type { StoredPrincipal } from '../../keys/key.types.ts';
import type { Pet } from '../../pets/pet.schemas.ts';
import type { Inventory } from '../../store/inventory.schemas.ts';
import { PET_COLUMNS as COLUMNS, PRINCIPAL_COLUMNS, toPet, toStoredPrincipal, type PetRow, type PrincipalRow } from '../rows.ts';
import type { PetQuery, PetRepository } from '../storage.ts';
import { BatchedLookup } from './postgres.batch.ts';
import type { PgDb } from './postgres.db.ts';

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

/**
 * ApiKeyRepository.findByHash: read for every request, never cached, so a revocation committed
 * by any instance (or the CLI) is visible to every instance's next request. Whether the key still
 * works is decided by KeyVerifier (`keyIsActive`).
 */
export function keysByHash(db: PgDb): (hash: string) => Promise<StoredPrincipal | undefined> {
  const active = new BatchedLookup<string, StoredPrincipal>(async (hashes) => {
    const rows = await db.query<PrincipalRow & { hash: string }>(`SELECT ${PRINCIPAL_COLUMNS}, hash FROM api_keys WHERE hash = ANY($1)`, [hashes]);
    return new Map(rows.map((r) => [r.hash, toStoredPrincipal(r)]));
  });
  return (hash) => active.get(hash);
}
