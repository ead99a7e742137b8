// The pet's statements, each written once for both engines and built from the pet's field table
// (PET_FIELDS, pets/pet.schemas.ts): the reads the engines' read paths wrap (SQLite's read cache,
// PostgreSQL's batched lookups) and the pet inside a workflow's transaction. On PostgreSQL the row
// locks order concurrent changes: every change of one pet (a PATCH, a withdrawal, an order placed
// for it) queues on the pet's row, and each then checks what the one before it committed.
import { PET_FIELDS, type Pet, type PetField } from '../../pets/pet.schemas.ts';
import type { PetCreate, PetIndex, PetTx } from '../../pets/pet.store.ts';
import { PET_COLUMNS, petValues, toPet, type PetRow } from '../rows.ts';
import { LIVE_CATEGORY } from './sql.categories.ts';
import { first, LIVE, perDialect, type Dialect, type SqlDb, type SqlParam } from './sql.db.ts';

/** The live pet $1. */
export const PET_BY_ID = `SELECT ${PET_COLUMNS} FROM pets WHERE id = $1 AND ${LIVE}`;
/** The live pets among the ids of the list parameter $1, in no particular order. */
export const PETS_BY_IDS = perDialect((d) => `SELECT ${PET_COLUMNS} FROM pets WHERE id ${d.anyOf('$1', 'BIGINT')} AND ${LIVE}`);
/** At most $1 live pets whose index was never written (PetRepository.unindexed), lowest ids first. */
export const UNINDEXED_PETS = `SELECT ${PET_COLUMNS} FROM pets WHERE search_text IS NULL AND ${LIVE} ORDER BY id LIMIT $1`;

const LOCK_PET = perDialect((d) => `${PET_BY_ID} ${d.lock('FOR UPDATE')}`);

// The columns each statement writes, from the field table, then the index the pets domain computes.
const INSERTED = PET_FIELDS.filter((f) => f.written !== 'never');
const UPDATED = PET_FIELDS.filter((f) => f.written === 'always');
const INDEX_COLUMNS = ['search_text', 'name_key'];
const columnsOf = (fields: readonly PetField[]) => [...fields.flatMap((f) => f.columns), ...INDEX_COLUMNS];
/** `$from`, `$from+1`, … for `count` parameters. */
const placeholders = (from: number, count: number) => Array.from({ length: count }, (_, i) => `$${from + i}`);

// One statement: the category's lock ($1) and the insert. The category must be live: a deleted
// category's row still satisfies the foreign key.
const INSERT_PET = perDialect((d) => {
  const columns = columnsOf(INSERTED);
  return `WITH c AS (${LIVE_CATEGORY(d)})
    INSERT INTO pets (${columns.join(', ')}) SELECT ${placeholders(2, columns.length).join(', ')} FROM c RETURNING ${PET_COLUMNS}`;
});
const UPDATE_PET = (() => {
  const columns = columnsOf(UPDATED);
  const set = columns.map((c, i) => `${c} = $${i + 2}`);
  return `UPDATE pets SET ${set.join(', ')} WHERE id = $1 RETURNING ${PET_COLUMNS}`;
})();
const written = (fields: readonly PetField[], pet: Partial<Pet>, index: PetIndex): SqlParam[] => [...petValues(fields, pet), index.searchText, index.nameKey];

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
    const stamp = input.at.toISOString();
    const values = written(INSERTED, { ...input, createdAt: stamp, updatedAt: stamp }, input);
    const row = await first<PetRow>(this.#db, INSERT_PET(this.#d), [input.categoryId, ...values]);
    if (row === undefined) return undefined;
    const created = toPet(row);
    if (created.tags.length > 0) await this.#db.run(ADD_TAGS(this.#d), [created.id, created.tags]);
    return created;
  }

  async update(current: Pet, p: Pet, index: PetIndex): Promise<Pet> {
    const row = await first<PetRow>(this.#db, UPDATE_PET, [p.id, ...written(UPDATED, p, index)]);
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
