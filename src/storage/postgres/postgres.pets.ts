import type { Pet } from '../../pets/pet.schemas.ts';
import { PET_COLUMNS as COLUMNS, toPet, type PetRow } from '../rows.ts';
import { unknownCategory } from '../rules.ts';
import type { PetCreate, PetQuery, PetRepository } from '../storage.ts';
import { sqlState, type PgDb } from './postgres.db.ts';

const FOREIGN_KEY_VIOLATION = '23503';

export class PostgresPets implements PetRepository {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  async create(input: PetCreate): Promise<Pet> {
    try {
      const [row] = await this.#db.query<PetRow>(`INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`, [
        input.name,
        input.categoryId,
        input.status,
      ]);
      return toPet(row);
    } catch (err) {
      // pets.category_id is the table's only foreign key.
      if (sqlState(err) === FOREIGN_KEY_VIOLATION) throw unknownCategory(input.categoryId);
      throw err;
    }
  }

  async get(id: number): Promise<Pet | undefined> {
    const [row] = await this.#db.query<PetRow>(`SELECT ${COLUMNS} FROM pets WHERE id = $1`, [id]);
    return row && toPet(row);
  }

  async list(q: PetQuery): Promise<Pet[]> {
    const rows =
      q.status === undefined
        ? await this.#db.query<PetRow>(`SELECT ${COLUMNS} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`, [q.afterId, q.limit])
        : await this.#db.query<PetRow>(`SELECT ${COLUMNS} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`, [q.status, q.afterId, q.limit]);
    return rows.map(toPet);
  }
}
