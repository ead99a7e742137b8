import type { Pet } from '../../pets/pet.schemas.ts';
import { PET_COLUMNS as COLUMNS, toPet, type PetRow } from '../rows.ts';
import { unknownCategory } from '../rules.ts';
import type { PetCreate, PetQuery, PetRepository, WriteContext } from '../storage.ts';
import { BatchedLookup } from './postgres.batch.ts';
import { sqlState, type PgDb } from './postgres.db.ts';
import { recordEffects } from './postgres.outbox.ts';

const FOREIGN_KEY_VIOLATION = '23503';

export class PostgresPets implements PetRepository {
  readonly #db: PgDb;
  readonly #byId: BatchedLookup<number, Pet>;
  readonly #pages: BatchedLookup<string, readonly Pet[]>;

  constructor(db: PgDb) {
    this.#db = db;
    // getPet: the reads of one loop turn share a query (BatchedLookup).
    this.#byId = new BatchedLookup<number, Pet>(async (ids) => {
      const rows = await db.query<PetRow>(`SELECT ${COLUMNS} FROM pets WHERE id = ANY($1)`, [ids]);
      return new Map(rows.map((r) => [r.id, Object.freeze(toPet(r))]));
    });
    // Listings: the requests of one loop turn that ask for the same page share its query (a hot
    // first page is asked for by many at once); different pages are separate queries.
    this.#pages = new BatchedLookup<string, readonly Pet[]>(async (keys) => new Map(await Promise.all(keys.map(async (k) => [k, await this.#page(k)] as const))));
  }

  async create(input: PetCreate, ctx: WriteContext<Pet>): Promise<Pet> {
    try {
      return await this.#db.transaction(async (query) => {
        const [row] = await query<PetRow>(`INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`, [input.name, input.categoryId, input.status]);
        const pet = toPet(row);
        return recordEffects(query, ctx, pet, [{ type: 'pet.created', data: pet }]);
      });
    } catch (err) {
      // pets.category_id is the table's only foreign key.
      if (sqlState(err) === FOREIGN_KEY_VIOLATION) throw unknownCategory(input.categoryId);
      throw err;
    }
  }

  get(id: number): Promise<Pet | undefined> {
    return this.#byId.get(id);
  }

  async list(q: PetQuery): Promise<Pet[]> {
    // A copy: the page's rows are shared by every request of the batch that asked for it.
    return [...(await this.#pages.get(`${q.limit} ${q.afterId} ${q.status ?? ''}`))!];
  }

  async #page(key: string): Promise<readonly Pet[]> {
    const [limit, afterId, status] = key.split(' ');
    const rows =
      status === ''
        ? await this.#db.query<PetRow>(`SELECT ${COLUMNS} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`, [afterId, limit])
        : await this.#db.query<PetRow>(`SELECT ${COLUMNS} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`, [status, afterId, limit]);
    return Object.freeze(rows.map((r) => Object.freeze(toPet(r))));
  }
}
