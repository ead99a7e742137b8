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
const RECORD_STATE = PET_FIELDS.filter((f) => f.member === 'recordComplete' || f.member === 'recordMissing');
const RESTATE_PET = `UPDATE pets SET ${RECORD_STATE.flatMap((f) => f.columns)
  .map((c, i) => `${c} = $${i + 2}`)
  .join(', ')} WHERE id = $1`;
const written = (fields: readonly PetField[], pet: Partial<Pet>, index: PetIndex): SqlParam[] => [...petValues(fields, pet), index.searchText, index.nameKey];

// pet_tags: one row per filter term of a live pet — its tags and its breed's words, as the pets
// domain writes them (PetIndex.terms) — what the tag and breed filters walk (its primary key is (tag, pet_id)).
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
    if (input.terms.length > 0) await this.#db.run(ADD_TAGS(this.#d), [created.id, input.terms]);
    return created;
  }

  async update(p: Pet, index: PetIndex, previous: PetIndex['terms']): Promise<Pet> {
    const row = await first<PetRow>(this.#db, UPDATE_PET, [p.id, ...written(UPDATED, p, index)]);
    const gone = previous.filter((t) => !index.terms.includes(t));
    const come = index.terms.filter((t) => !previous.includes(t));
    if (gone.length > 0) await this.#db.run(REMOVE_TAGS(this.#d), [p.id, gone]);
    if (come.length > 0) await this.#db.run(ADD_TAGS(this.#d), [p.id, come]);
    return toPet(row!);
  }

  async microchipHolder(chip: string): Promise<number | undefined> {
    // Two writes giving one number take turns from here to COMMIT (on SQLite one writer holds the
    // database), so the second sees the first's pet; pets_live_microchip refuses a third way round.
    // Negative keys: the service's other transaction-scoped locks are positive.
    if (this.#d.takeTurns !== undefined) await this.#db.all(this.#d.takeTurns, [-1 - Number.parseInt(chip, 16)]);
    return (await first<{ id: number }>(this.#db, `SELECT id FROM pets WHERE microchip = $1 AND ${LIVE}`, [chip]))?.id;
  }

  async restate(id: number, state: Pick<Pet, 'recordComplete' | 'recordMissing'>): Promise<void> {
    await this.#db.run(RESTATE_PET, [id, ...petValues(RECORD_STATE, state)]);
  }

  async reindex(id: number, index: PetIndex): Promise<boolean> {
    const sql = 'UPDATE pets SET search_text = $2, name_key = $3 WHERE id = $1 AND search_text IS NULL';
    return (await this.#db.run(sql, [id, index.searchText, index.nameKey])) > 0;
  }

  async withdraw(p: Pet, at: Date, terms: PetIndex['terms']): Promise<void> {
    await this.#db.run('UPDATE pets SET deleted_at = $2 WHERE id = $1', [p.id, at.toISOString()]);
    // A withdrawn pet leaves the tag and breed filters' index, as it leaves the search index (a trigger).
    if (terms.length > 0) await this.#db.run(REMOVE_TAGS(this.#d), [p.id, terms]);
  }

  async anyIn(categoryId: number): Promise<boolean> {
    // Served by pets_live_category_id.
    return (await first(this.#db, `SELECT 1 FROM pets WHERE category_id = $1 AND ${LIVE} LIMIT 1`, [categoryId])) !== undefined;
  }
}

const pet = (row: PetRow | undefined): Pet | undefined => row && toPet(row);
