// The reads every request makes — its key, a pet, a page of pets — answered from memory until the
// database changes (ReadCache), between write batches (GroupCommit.outside).
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { StoredPrincipal } from '../../keys/key.types.ts';
import type { Pet } from '../../pets/pet.schemas.ts';
import type { Inventory } from '../../store/inventory.schemas.ts';
import { frozenPet, PRINCIPAL_COLUMNS, toStoredPrincipal, tupleToPet, type PetTuple, type PrincipalRow } from '../rows.ts';
import { petListPlan } from '../sql/sql.pet-list.ts';
import { PET_BY_ID, UNINDEXED_PETS } from '../sql/sql.pets.ts';
import type { SqlParam } from '../sql/sql.db.ts';
import type { PetPage, PetQuery, PetRepository } from '../../pets/pet.store.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import { prepare, sqliteDialect } from './sqlite.db.ts';
import { ReadCache, type DatabaseChanges } from './sqlite.read-cache.ts';

/** The largest page a listing asks for: `limit`'s maximum (100, schemas.ts) and one more, which tells whether a next page exists. */
const CACHED_PAGE_MAX = 101;

export class SqlitePets implements PetRepository {
  readonly #writes: GroupCommit;
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  // One statement per shape of listing (filters and order given), prepared on first use.
  readonly #lists = new Map<string, StatementSync>();
  readonly #inventory: StatementSync;
  readonly #stockValue: StatementSync;
  readonly #unindexed: StatementSync;
  readonly #pages: ReadCache<PetPage>;
  readonly #byId: ReadCache<Pet>;

  constructor(db: DatabaseSync, changes: DatabaseChanges, writes: GroupCommit) {
    this.#db = db;
    this.#writes = writes;
    // A few thousand pages of at most 100 pets: a few MiB at worst.
    this.#pages = new ReadCache(changes, 2_000);
    // Single pets, for getPet: 10,000 small objects at most.
    this.#byId = new ReadCache(changes, 10_000);
    // Rows as arrays: node:sqlite then builds no per-row objects with named keys.
    this.#get = prepare(db, PET_BY_ID);
    this.#get.setReturnArrays(true);
    this.#inventory = db.prepare('SELECT available, pending, sold FROM pet_inventory');
    this.#stockValue = db.prepare('SELECT currency, amount FROM pet_stock_value WHERE amount <> 0 ORDER BY currency');
    this.#stockValue.setReturnArrays(true);
    this.#unindexed = prepare(db, UNINDEXED_PETS);
    this.#unindexed.setReturnArrays(true);
  }

  get(id: number): Promise<Pet | undefined> {
    return this.#writes.outside(() =>
      this.#byId.get(id, () => {
        const row = this.#get.get(id) as unknown as PetTuple | undefined;
        return row && frozenPet(tupleToPet(row));
      }),
    );
  }

  list(q: PetQuery): Promise<PetPage> {
    // A hot listing is read once until the database changes; callers get a copy. A page larger than
    // a listing's (an export's, read once each) is not remembered: the cache would come to hold the table.
    return this.#writes.outside(() => {
      const { pets, walkedTo } = q.limit > CACHED_PAGE_MAX ? this.#page(q) : this.#pages.get(JSON.stringify(q), () => this.#page(q))!;
      return { pets: [...pets], walkedTo };
    });
  }

  /** The steps of petListPlan, run in one synchronous read (one committed state). */
  #page(q: PetQuery): PetPage {
    let rows: PetTuple[] = [];
    const plan = petListPlan(q, sqliteDialect);
    let step = plan.next();
    while (!step.done) {
      const { statement, pets } = step.value;
      const prepared = this.#list(statement.sql);
      const params = statement.params as (string | number | null)[];
      if (pets) rows = prepared.all(...params) as unknown as PetTuple[];
      step = plan.next(pets ? [rows.length] : (prepared.get(...params) as unknown as SqlParam[] | undefined));
    }
    const pets = Object.freeze(rows.map((r) => frozenPet(tupleToPet(r)))) as Pet[];
    return Object.freeze({ pets, walkedTo: step.value });
  }

  #list(sql: string): StatementSync {
    let statement = this.#lists.get(sql);
    if (statement === undefined) {
      statement = prepare(this.#db, sql);
      statement.setReturnArrays(true);
      this.#lists.set(sql, statement);
    }
    return statement;
  }

  inventory(): Promise<Inventory> {
    return this.#writes.outside(() => {
      const counts = this.#inventory.get() as { available: number; pending: number; sold: number };
      const value = this.#stockValue.all() as unknown as [string, number][];
      return { available: counts.available, pending: counts.pending, sold: counts.sold, availableValue: Object.fromEntries(value) };
    });
  }

  unindexed(limit: number): Promise<Pet[]> {
    return this.#writes.outside(() => (this.#unindexed.all(limit) as unknown as PetTuple[]).map(tupleToPet));
  }
}

/**
 * ApiKeyRepository.findByHash. Every request looks its key up. Remembered until the database
 * changes — any commit, by this process or another (`petstore keys revoke`) — so a revocation still
 * applies from the next request on. An expiry needs no change to the database: KeyVerifier compares
 * it with its clock on every request, cached or not (`keyIsActive`). Only keys that exist are
 * remembered: random tokens cannot fill the cache.
 */
export function keysByHash(db: DatabaseSync, changes: DatabaseChanges, writes: GroupCommit): (hash: string) => Promise<StoredPrincipal | undefined> {
  const active = new ReadCache<StoredPrincipal>(changes, 1_000);
  // Lookup by the hash of a random 256-bit key: the index compares hashes, so response time tells
  // an attacker nothing about how close a guess was to a real key.
  const byHash = db.prepare(`SELECT ${PRINCIPAL_COLUMNS} FROM api_keys WHERE hash = ?`);
  return (hash) =>
    writes.outside(() =>
      active.get(hash, () => {
        const row = byHash.get(hash) as PrincipalRow | undefined;
        return row && toStoredPrincipal(row);
      }),
    );
}
