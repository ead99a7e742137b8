// The pet inside a workflow's transaction. On PostgreSQL the row locks order concurrent changes:
// every change of one pet (a PATCH, a withdrawal, an order placed for it) queues on the pet's row,
// and each then checks what the one before it committed.
import type { Pet } from '../../pets/pet.schemas.ts';
import type { PetCreate, PetIndex, PetTx } from '../../pets/pet.store.ts';
import { PET_COLUMNS, priceColumns, toPet, type PetRow } from '../rows.ts';
import { LIVE_CATEGORY } from './sql.categories.ts';
import { first, LIVE, perDialect, type Dialect, type SqlDb } from './sql.db.ts';

const LOCK_PET = perDialect((d) => `SELECT ${PET_COLUMNS} FROM pets WHERE id = $1 AND ${LIVE} ${d.lock('FOR UPDATE')}`);
// One statement: the category's lock and the insert. The category must be live: a deleted
// category's row still satisfies the foreign key.
const INSERT_PET = perDialect(
  (d) => `WITH c AS (${LIVE_CATEGORY(d)})
    INSERT INTO pets (name, category_id, status, description, tags, price_amount, price_currency, created_at, updated_at, search_text, name_key)
    SELECT $2, id, $3, $4, $5, $6, $7, $8, $8, $9, $10 FROM c RETURNING ${PET_COLUMNS}`,
);
const UPDATE_PET = `UPDATE pets SET name = $2, category_id = $3, status = $4, description = $5, tags = $6, price_amount = $7, price_currency = $8,
  updated_at = $9, search_text = $10, name_key = $11 WHERE id = $1 RETURNING ${PET_COLUMNS}`;
// pet_tags: one row per tag of a live pet, what the tag filter walks (its primary key is (tag, pet_id)).
const ADD_TAGS = perDialect((d) => `INSERT INTO pet_tags (tag, pet_id) SELECT t.item, $1 FROM ${d.items('$2', 't')}`);
const REMOVE_TAGS = perDialect((d) => `DELETE FROM pet_tags WHERE pet_id = $1 AND tag IN (SELECT t.item FROM ${d.items('$2', 't')})`);

export class SqlPetTx implements PetTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async lock(id: number): Promise<Pet | undefined> {
    return pet(await first(this.#db, LOCK_PET(this.#d), [id]));
  }

  async insert(input: PetCreate): Promise<Pet | undefined> {
    const { categoryId, name, status, description, tags, price, at, searchText, nameKey } = input;
    const stamp = at.toISOString();
    const row = await first<PetRow>(this.#db, INSERT_PET(this.#d), [
      categoryId,
      name,
      status,
      description ?? null,
      JSON.stringify(tags),
      ...priceColumns(price),
      stamp,
      searchText,
      nameKey,
    ]);
    if (row === undefined) return undefined;
    if (tags.length > 0) await this.#db.run(ADD_TAGS(this.#d), [row.id, tags]);
    return toPet(row);
  }

  async update(current: Pet, p: Pet, index: PetIndex): Promise<Pet> {
    const params = [p.id, p.name, p.categoryId, p.status, p.description ?? null, JSON.stringify(p.tags), ...priceColumns(p.price), p.updatedAt];
    const row = await first<PetRow>(this.#db, UPDATE_PET, [...params, index.searchText, index.nameKey]);
    const gone = current.tags.filter((t) => !p.tags.includes(t));
    const come = p.tags.filter((t) => !current.tags.includes(t));
    if (gone.length > 0) await this.#db.run(REMOVE_TAGS(this.#d), [p.id, gone]);
    if (come.length > 0) await this.#db.run(ADD_TAGS(this.#d), [p.id, come]);
    return toPet(row!);
  }

  async reindex(id: number, index: PetIndex): Promise<boolean> {
    const sql = 'UPDATE pets SET search_text = $2, name_key = $3 WHERE id = $1 AND search_text IS NULL';
    return (await this.#db.run(sql, [id, index.searchText, index.nameKey])) > 0;
  }

  async withdraw(p: Pet, at: Date): Promise<void> {
    await this.#db.run('UPDATE pets SET deleted_at = $2 WHERE id = $1', [p.id, at.toISOString()]);
    // A withdrawn pet leaves the tag filter's index, as it leaves the search index (a trigger).
    if (p.tags.length > 0) await this.#db.run(REMOVE_TAGS(this.#d), [p.id, p.tags]);
  }

  async anyIn(categoryId: number): Promise<boolean> {
    // Served by pets_live_category_id.
    return (await first(this.#db, `SELECT 1 FROM pets WHERE category_id = $1 AND ${LIVE} LIMIT 1`, [categoryId])) !== undefined;
  }
}

const pet = (row: PetRow | undefined): Pet | undefined => row && toPet(row);
