// The reads every request makes — its key, a pet, a page of pets — answered from memory until the
// database changes (ReadCache), between write batches (GroupCommit.outside).
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { StoredPrincipal } from '../../keys/key.types.ts';
import type { Pet, PetStatus } from '../../pets/pet.schemas.ts';
import type { Inventory } from '../../store/inventory.schemas.ts';
import { PET_COLUMNS, toStoredPrincipal, withPhotos, type PrincipalRow } from '../rows.ts';
import type { PetQuery, PetRepository } from '../storage.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import { ReadCache, type DatabaseChanges } from './sqlite.read-cache.ts';

type PetTuple = [id: number, name: string, categoryId: number, status: PetStatus, photos: string | null];
const fromTuple = (r: PetTuple): Pet => withPhotos({ id: r[0], name: r[1], categoryId: r[2], status: r[3] }, r[4]);

// Only live pets are read; a withdrawn one (deleted_at set) is absent everywhere.
const LIVE = 'deleted_at IS NULL';

export class SqlitePets implements PetRepository {
  readonly #writes: GroupCommit;
  readonly #get: StatementSync;
  readonly #lists: Record<'all' | 'status' | 'category' | 'both', StatementSync>;
  readonly #inventory: StatementSync;
  readonly #pages: ReadCache<readonly Pet[]>;
  readonly #byId: ReadCache<Pet>;

  constructor(db: DatabaseSync, changes: DatabaseChanges, writes: GroupCommit) {
    this.#writes = writes;
    // A few thousand pages of at most 100 pets: a few MiB at worst.
    this.#pages = new ReadCache(changes, 2_000);
    // Single pets, for getPet: 10,000 small objects at most.
    this.#byId = new ReadCache(changes, 10_000);
    this.#get = db.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE id = ? AND ${LIVE}`);
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
    this.#inventory = db.prepare('SELECT available, pending, sold FROM pet_inventory');
  }

  get(id: number): Promise<Pet | undefined> {
    return this.#writes.outside(() =>
      this.#byId.get(id, () => {
        const row = this.#get.get(id) as unknown as PetTuple | undefined;
        return row && Object.freeze(fromTuple(row));
      }),
    );
  }

  list(q: PetQuery): Promise<Pet[]> {
    // A hot listing is read once until the database changes; callers get a copy.
    return this.#writes.outside(() => [
      ...this.#pages.get(`${q.status ?? ''};${q.categoryId ?? ''};${q.afterId};${q.limit}`, () => {
        const which = q.status === undefined ? (q.categoryId === undefined ? 'all' : 'category') : q.categoryId === undefined ? 'status' : 'both';
        const params: Record<string, string | number> = { after: q.afterId, limit: q.limit };
        if (q.status !== undefined) params.status = q.status;
        if (q.categoryId !== undefined) params.category = q.categoryId;
        const rows = this.#lists[which].all(params) as unknown as PetTuple[];
        return Object.freeze(rows.map((r) => Object.freeze(fromTuple(r))));
      })!,
    ]);
  }

  inventory(): Promise<Inventory> {
    return this.#writes.outside(() => ({ ...(this.#inventory.get() as Inventory) }));
  }
}

/**
 * ApiKeyRepository.findActiveByHash. Every request looks its key up. Remembered until the database
 * changes — any commit, by this process or another (`petstore keys revoke`) — so a revocation still
 * applies from the next request on. An expiry needs no change to the database: KeyVerifier compares
 * it with its clock on every request, cached or not. Only keys that exist are remembered: random
 * tokens cannot fill the cache.
 */
export function activeKeys(db: DatabaseSync, changes: DatabaseChanges, writes: GroupCommit): (hash: string) => Promise<StoredPrincipal | undefined> {
  const active = new ReadCache<StoredPrincipal>(changes, 1_000);
  // Lookup by the hash of a random 256-bit key: the index compares hashes, so response time tells
  // an attacker nothing about how close a guess was to a real key.
  const byHash = db.prepare('SELECT id, scopes, expires_at FROM api_keys WHERE hash = ? AND revoked_at IS NULL');
  return (hash) =>
    writes.outside(() =>
      active.get(hash, () => {
        const row = byHash.get(hash) as PrincipalRow | undefined;
        return row && toStoredPrincipal(row);
      }),
    );
}
