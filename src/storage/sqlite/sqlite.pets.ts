import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Pet, PetStatus } from '../../pets/pet.schemas.ts';
import type { Inventory } from '../../store/inventory.schemas.ts';
import { ORDER_IS_OPEN, PET_COLUMNS, toPet, type PetRow } from '../rows.ts';
import type { ConditionalWrite, PetCreate, PetPatch, PetQuery, PetRepository, WriteContext } from '../storage.ts';
import { assertFound, assertIfMatch, patchPet, petHasOpenOrder, unknownCategory } from '../rules.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import type { SqliteOutbox } from './sqlite.outbox.ts';
import { ReadCache, type DatabaseChanges } from './sqlite.read-cache.ts';

type PetTuple = [id: number, name: string, categoryId: number, status: PetStatus];
const fromTuple = (r: PetTuple): Pet => ({ id: r[0], name: r[1], categoryId: r[2], status: r[3] });

// Only live pets are read; a withdrawn one (deleted_at set) is absent everywhere.
const LIVE = 'deleted_at IS NULL';

export class SqlitePets implements PetRepository {
  readonly #insert: StatementSync;
  readonly #get: StatementSync;
  readonly #lists: Record<'all' | 'status' | 'category' | 'both', StatementSync>;
  readonly #update: StatementSync;
  readonly #withdraw: StatementSync;
  readonly #openOrder: StatementSync;
  readonly #liveCategory: StatementSync;
  readonly #inventory: StatementSync;
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
    // The category must be live: a deleted category's row still satisfies the foreign key.
    this.#insert = db.prepare(
      `INSERT INTO pets (name, category_id, status) SELECT :name, id, :status FROM categories WHERE id = :category AND ${LIVE} RETURNING ${PET_COLUMNS}`,
    );
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
    this.#update = db.prepare(`UPDATE pets SET name = ?, category_id = ?, status = ? WHERE id = ? RETURNING ${PET_COLUMNS}`);
    this.#withdraw = db.prepare('UPDATE pets SET deleted_at = ? WHERE id = ?');
    this.#openOrder = db.prepare(`SELECT 1 FROM orders WHERE pet_id = ? AND ${ORDER_IS_OPEN} LIMIT 1`);
    this.#liveCategory = db.prepare(`SELECT 1 FROM categories WHERE id = ? AND ${LIVE}`);
    this.#inventory = db.prepare('SELECT available, pending, sold FROM pet_inventory');
  }

  async create(input: PetCreate, ctx: WriteContext<Pet>): Promise<Pet> {
    // Durable when it resolves: the write's transaction has committed (see GroupCommit).
    return this.#writes.run(() => {
      const row = this.#insert.get({ name: input.name, status: input.status, category: input.categoryId }) as PetRow | undefined;
      if (row === undefined) throw unknownCategory(input.categoryId);
      const pet = toPet(row);
      return this.#outbox.record(ctx, pet, [{ type: 'pet.created', data: pet }]);
    });
  }

  async get(id: number): Promise<Pet | undefined> {
    return this.#byId.get(id, () => this.#read(id));
  }

  #read(id: number): Pet | undefined {
    const row = this.#get.get(id) as unknown as PetTuple | undefined;
    return row && Object.freeze(fromTuple(row));
  }

  async list(q: PetQuery): Promise<Pet[]> {
    // A hot listing is read once until the database changes (ReadCache); callers get a copy.
    const page = this.#pages.get(`${q.status ?? ''};${q.categoryId ?? ''};${q.afterId};${q.limit}`, () => {
      const which = q.status === undefined ? (q.categoryId === undefined ? 'all' : 'category') : q.categoryId === undefined ? 'status' : 'both';
      const params: Record<string, string | number> = { after: q.afterId, limit: q.limit };
      if (q.status !== undefined) params.status = q.status;
      if (q.categoryId !== undefined) params.category = q.categoryId;
      const rows = this.#lists[which].all(params) as unknown as PetTuple[];
      return Object.freeze(rows.map((r) => Object.freeze(fromTuple(r))));
    })!;
    return [...page];
  }

  async update(id: number, patch: PetPatch, ctx: ConditionalWrite<Pet>): Promise<Pet> {
    // Inside the one write transaction (GroupCommit): the checks and the write see one state.
    return this.#writes.run(() => {
      const current = this.#read(id);
      assertFound(`pet ${id}`, current);
      assertIfMatch(`pet ${id}`, ctx.ifMatch, current);
      const { next, changed } = patchPet(current, patch);
      if (!changed) return this.#outbox.record(ctx, current, []);
      if (next.categoryId !== current.categoryId && this.#liveCategory.get(next.categoryId) === undefined) throw unknownCategory(next.categoryId);
      if (next.status !== current.status && this.#openOrder.get(id) !== undefined) throw petHasOpenOrder(id, 'status');
      const pet = toPet(this.#update.get(next.name, next.categoryId, next.status, id) as unknown as PetRow);
      return this.#outbox.record(ctx, pet, [{ type: 'pet.updated', data: pet }]);
    });
  }

  async withdraw(id: number, ctx: ConditionalWrite<void>): Promise<void> {
    return this.#writes.run(() => {
      const current = this.#read(id);
      assertFound(`pet ${id}`, current);
      assertIfMatch(`pet ${id}`, ctx.ifMatch, current);
      if (this.#openOrder.get(id) !== undefined) throw petHasOpenOrder(id, 'withdraw');
      this.#withdraw.run(ctx.now.toISOString(), id);
      this.#outbox.record(ctx, undefined, [{ type: 'pet.deleted', data: { id } }]);
    });
  }

  async inventory(): Promise<Inventory> {
    return { ...(this.#inventory.get() as Inventory) };
  }
}
