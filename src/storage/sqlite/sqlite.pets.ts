import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { AppError } from '../../errors.ts';
import type { Pet, PetStatus } from '../../pets/pet.schemas.ts';
import type { PetCreate, PetQuery, PetRepository } from '../storage.ts';
import { isConstraint } from './sqlite.tx.ts';

interface PetRow {
  id: number;
  name: string;
  category_id: number;
  status: PetStatus;
}

const toPet = (r: PetRow): Pet => ({ id: r.id, name: r.name, categoryId: r.category_id, status: r.status });

export class SqlitePets implements PetRepository {
  readonly #insert: StatementSync;
  readonly #get: StatementSync;
  readonly #list: StatementSync;
  readonly #listByStatus: StatementSync;

  constructor(db: DatabaseSync) {
    this.#insert = db.prepare('INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING id, name, category_id, status');
    this.#get = db.prepare('SELECT id, name, category_id, status FROM pets WHERE id = ?');
    this.#list = db.prepare('SELECT id, name, category_id, status FROM pets WHERE id > ? ORDER BY id LIMIT ?');
    this.#listByStatus = db.prepare('SELECT id, name, category_id, status FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?');
  }

  async create(input: PetCreate): Promise<Pet> {
    try {
      return toPet(this.#insert.get(input.name, input.categoryId, input.status) as unknown as PetRow);
    } catch (err) {
      if (isConstraint(err, 'FOREIGN KEY')) throw new AppError('unknown_category', `body/categoryId ${input.categoryId} is not a known category (see GET /v1/categories)`);
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
