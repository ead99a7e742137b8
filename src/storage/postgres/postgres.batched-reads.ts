// The reads every request makes — its key, a pet, a page of pets — batched: the requests of one
// turn of the event loop share a query (BatchedLookup), never a cached answer.
import type { StoredPrincipal } from '../../keys/key.types.ts';
import type { Pet } from '../../pets/pet.schemas.ts';
import type { Inventory } from '../../store/inventory.schemas.ts';
import { frozenPet, PRINCIPAL_COLUMNS, toPet, toStoredPrincipal, type PetRow, type PrincipalRow } from '../rows.ts';
import { petListPlan } from '../sql/sql.pet-list.ts';
import { PETS_BY_IDS, UNINDEXED_PETS } from '../sql/sql.pets.ts';
import type { SqlParam } from '../sql/sql.db.ts';
import type { PetPage, PetQuery, PetRepository } from '../../pets/pet.store.ts';
import { postgresDialect } from './postgres.dialect.ts';
import { BatchedLookup } from './postgres.batch.ts';
import type { PgDb } from './postgres.db.ts';

export class PostgresPets implements PetRepository {
  readonly #db: PgDb;
  readonly #byId: BatchedLookup<number, Pet>;
  readonly #pages: BatchedLookup<string, PetPage>;

  constructor(db: PgDb) {
    this.#db = db;
    // getPet: the reads of one loop turn share a query (BatchedLookup).
    this.#byId = new BatchedLookup<number, Pet>(async (ids) => {
      const pets = (await db.query<PetRow>(PETS_BY_IDS(postgresDialect), [ids])).map((r) => frozenPet(toPet(r)));
      return new Map(pets.map((p) => [p.id, p]));
    });
    // Listings: the requests of one loop turn that ask for the same page share its query (a hot
    // first page is asked for by many at once); different pages are separate queries.
    this.#pages = new BatchedLookup<string, PetPage>(
      async (keys) => new Map(await Promise.all(keys.map(async (k) => [k, await this.#planned(JSON.parse(k) as PetQuery)] as const))),
    );
  }

  get(id: number): Promise<Pet | undefined> {
    return this.#byId.get(id);
  }

  async list(q: PetQuery): Promise<PetPage> {
    // A copy: the page's rows are shared by every request of the batch that asked for it.
    const { pets, walkedTo } = (await this.#pages.get(JSON.stringify(q)))!;
    return { pets: [...pets], walkedTo };
  }

  /** The steps of petListPlan (sql.pet-list.ts), one statement after the other. */
  async #planned(q: PetQuery): Promise<PetPage> {
    let rows: PetRow[] = [];
    const plan = petListPlan(q, postgresDialect);
    let step = plan.next();
    while (!step.done) {
      const { statement, pets } = step.value;
      if (pets) rows = await this.#db.query<PetRow>(statement.sql, statement.params);
      const [first] = pets ? [] : await this.#db.query<Record<string, SqlParam>>(statement.sql, statement.params);
      step = plan.next(pets ? [rows.length] : first && Object.values(first));
    }
    return { pets: freeze(rows), walkedTo: step.value };
  }

  async inventory(): Promise<Inventory> {
    // The counter's slots (migration 8) summed, and the stock value's slots (migration 9) summed per
    // currency, in one statement: a snapshot of one committed state (READ COMMITTED).
    const [row] = await this.#db.query<Omit<Inventory, 'availableValue'> & { value: [string, number][] | null }>(
      `SELECT sum(available)::int8 AS available, sum(pending)::int8 AS pending, sum(sold)::int8 AS sold,
        (SELECT json_agg(json_build_array(currency, amount) ORDER BY currency)
          FROM (SELECT currency, sum(amount)::int8 AS amount FROM pet_stock_value GROUP BY currency HAVING sum(amount) <> 0) AS v) AS value
        FROM pet_inventory`,
    );
    return { available: row.available, pending: row.pending, sold: row.sold, availableValue: Object.fromEntries(row.value ?? []) };
  }

  async unindexed(limit: number): Promise<Pet[]> {
    return (await this.#db.query<PetRow>(UNINDEXED_PETS, [limit])).map(toPet);
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

const freeze = (rows: PetRow[]): Pet[] => Object.freeze(rows.map((r) => frozenPet(toPet(r)))) as Pet[];
