import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Pet } from '../../pets/pet.schemas.ts';
import { PET_COLUMNS, toPet, type PetRow } from '../rows.ts';
import type { PetCreate, PetQuery, PetRepository } from '../storage.ts';
import { unknownCategory } from '../rules.ts';
import { GroupCommit } from './sqlite.group-commit.ts';
import { isConstraint } from './sqlite.tx.ts';

export class SqlitePets implements PetRepository {
  readonly #insert: StatementSync;
  readonly #get: StatementSync;
  readonly #list: StatementSync;
  readonly #listByStatus: StatementSync;
  readonly #writes: GroupCommit;

  constructor(db: DatabaseSync) {
    this.#writes = new GroupCommit(db);
    this.#insert = db.prepare(`INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${PET_COLUMNS}`);
    this.#get = db.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE id = ?`);
    this.#list = db.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`);
    this.#listByStatus = db.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`);
  }

  async create(input: PetCreate): Promise<Pet> {
    try {
      // Durable when it resolves: the insert's transaction has committed (see GroupCommit).
      return toPet((await this.#writes.run(() => this.#insert.get(input.name, input.categoryId, input.status))) as unknown as PetRow);
    } catch (err) {
      if (isConstraint(err, 'FOREIGN KEY')) throw unknownCategory(input.categoryId);
      throw err;
    }
  }

  async get(id: number): Promise<Pet | undefined> {
    const row = this.#get.get(id) as PetRow | undefined;
    return row && toPet(row);
  }

  async list(q: PetQuery): Promise<Pet[]> {
    const rows = q.status === undefined ? this.#list.all(q.afterId, q.limit) : this.#listByStatus.all(q.status, q.afterId, q.limit);
    return (rows as unknown as PetRow[]).map(toPet);
  }
}
