import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Pet, PetStatus } from '../../pets/pet.schemas.ts';
import { PET_COLUMNS, toPet, type PetRow } from '../rows.ts';
import type { PetCreate, PetQuery, PetRepository, WriteContext } from '../storage.ts';
import { unknownCategory } from '../rules.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import type { SqliteOutbox } from './sqlite.outbox.ts';
import { ReadCache, type DatabaseChanges } from './sqlite.read-cache.ts';
import { isConstraint } from './sqlite.tx.ts';

type PetTuple = [id: number, name: string, categoryId: number, status: PetStatus];
const fromTuple = (r: PetTuple): Pet => ({ id: r[0], name: r[1], categoryId: r[2], status: r[3] });

export class SqlitePets implements PetRepository {
  readonly #insert: StatementSync;
  readonly #get: StatementSync;
  readonly #list: StatementSync;
  readonly #listByStatus: StatementSync;
  readonly #writes: GroupCommit;
  readonly #outbox: SqliteOutbox;
  readonly #pages: ReadCache<readonly Pet[]>;
  readonly #byId: ReadCache<Pet>;

  constructor(db: DatabaseSync, changes: DatabaseChanges, writes: GroupCommit, outbox: SqliteOutbox) {
    this.#writes = writes;
    this.#outbox = outbox;
    // A few thousand pages of at most 100 pets: a few MiB at worst.
    this.#pages = new ReadCache(changes, 2_000);
    // Single pets, for getPet: 10,000 small objects at most.
    this.#byId = new ReadCache(changes, 10_000);
    this.#insert = db.prepare(`INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${PET_COLUMNS}`);
    this.#get = db.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE id = ?`);
    this.#get.setReturnArrays(true);
    // Rows as arrays: node:sqlite then builds no per-row objects with named keys.
    this.#list = db.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`);
    this.#list.setReturnArrays(true);
    this.#listByStatus = db.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`);
    this.#listByStatus.setReturnArrays(true);
  }

  async create(input: PetCreate, ctx: WriteContext<Pet>): Promise<Pet> {
    try {
      // Durable when it resolves: the write's transaction has committed (see GroupCommit).
      return await this.#writes.run(() => {
        const pet = toPet(this.#insert.get(input.name, input.categoryId, input.status) as unknown as PetRow);
        return this.#outbox.record(ctx, pet, [{ type: 'pet.created', data: pet }]);
      });
    } catch (err) {
      if (isConstraint(err, 'FOREIGN KEY')) throw unknownCategory(input.categoryId);
      throw err;
    }
  }

  async get(id: number): Promise<Pet | undefined> {
    return this.#byId.get(id, () => {
      const row = this.#get.get(id) as unknown as PetTuple | undefined;
      return row && Object.freeze(fromTuple(row));
    });
  }

  async list(q: PetQuery): Promise<Pet[]> {
    // A hot listing is read once until the database changes (ReadCache); callers get a copy.
    const page = this.#pages.get(`${q.status ?? ''};${q.afterId};${q.limit}`, () => {
      const rows = q.status === undefined ? this.#list.all(q.afterId, q.limit) : this.#listByStatus.all(q.status, q.afterId, q.limit);
      return Object.freeze((rows as unknown as PetTuple[]).map((r) => Object.freeze(fromTuple(r))));
    })!;
    return [...page];
  }
}
