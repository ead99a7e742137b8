import type { Pet } from '../../pets/pet.schemas.ts';
import { PET_COLUMNS as COLUMNS, toPet, type PetRow } from '../rows.ts';
import { unknownCategory } from '../rules.ts';
import type { PetCreate, PetQuery, PetRepository } from '../storage.ts';
import { BatchedLookup, BatchedWrite } from './postgres.batch.ts';
import { sqlState, type PgDb } from './postgres.db.ts';

const FOREIGN_KEY_VIOLATION = '23503';

export class PostgresPets implements PetRepository {
  readonly #db: PgDb;
  readonly #byId: BatchedLookup<number, Pet>;
  readonly #pages: BatchedLookup<string, readonly Pet[]>;
  // Creates: the inserts of one loop turn are one statement and one commit (group commit, as the
  // SQLite engine does). An error the server reports for the statement's data — a constraint
  // (SQLSTATE class 23: an unknown category) or a value it cannot store (class 22) — rolled the
  // statement back, so each insert of that batch then runs alone and only the bad one fails.
  readonly #inserts = new BatchedWrite<PetCreate, Pet>({
    many: (inputs) => this.#insertMany(inputs),
    one: (input) => this.#insertOne(input),
    retryAlone: (err) => /^2[23]/.test(sqlState(err) ?? ''),
  });

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

  async create(input: PetCreate): Promise<Pet> {
    try {
      return await this.#inserts.call(input);
    } catch (err) {
      // pets.category_id is the table's only foreign key.
      if (sqlState(err) === FOREIGN_KEY_VIOLATION) throw unknownCategory(input.categoryId);
      throw err;
    }
  }

  async #insertOne(input: PetCreate): Promise<Pet> {
    const [row] = await this.#db.query<PetRow>(`INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`, [input.name, input.categoryId, input.status]);
    return toPet(row);
  }

  /** The inserts of one loop turn as one statement; rows come back in the inputs' order. */
  async #insertMany(inputs: PetCreate[]): Promise<Pet[]> {
    const rows = await this.#db.query<PetRow>(
      `INSERT INTO pets (name, category_id, status) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]) RETURNING ${COLUMNS}`,
      [inputs.map((i) => i.name), inputs.map((i) => i.categoryId), inputs.map((i) => i.status)],
    );
    // PostgreSQL returns an INSERT … SELECT's rows in the order it inserted them, which is the
    // arrays' order, and identity ids rise in that order. Checked, not assumed: a row that does not
    // match its input would hand one client another's pet.
    const pets = rows.map(toPet).sort((a, b) => a.id - b.id);
    // Names as they were stored: sent as UTF-8, so a lone surrogate arrives as U+FFFD.
    const same = (p: Pet, i: PetCreate) => p.name === Buffer.from(i.name).toString() && p.categoryId === i.categoryId && p.status === i.status;
    if (pets.length !== inputs.length || !pets.every((p, k) => same(p, inputs[k]))) {
      throw new Error(`batched insert returned ${pets.length} rows out of order for ${inputs.length} inputs`);
    }
    return pets;
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
