// The statement of a page of pets (PetRepository.list), written once for both engines: which index
// serves which listing is written beside each migration 9 index (../sqlite/migrations.ts,
// ../postgres/migrations.ts), and test/storage/pet-plans.test.ts shows the plans use them.
import { UNPRICED_SORT_KEY } from '../../pets/pet.schemas.ts';
import { PET_COLUMNS } from '../rows.ts';
import type { PetOrderKey, PetQuery } from '../storage.ts';
import type { Dialect, SqlParam } from './sql.db.ts';

/** The sort expressions, as the migration 9 indexes are written (an expression index is used only for the same expression). */
export const PET_SORT_EXPRESSIONS: Record<Exclude<PetOrderKey, 'id'>, string> = {
  name: 'name_key',
  price: `coalesce(price_amount, ${UNPRICED_SORT_KEY})`,
  createdAt: 'created_at',
};

const LIVE = 'deleted_at IS NULL';
const qualified = (prefix: string) =>
  PET_COLUMNS.split(', ')
    .map((c) => `${prefix}${c}`)
    .join(', ');
const JOINED_COLUMNS = qualified('p.');

export interface Statement {
  readonly sql: string;
  readonly params: SqlParam[];
}

/** The most matches a search has for PostgresPets to call it sparse (Dialect.searchPets). */
export const SPARSE_SEARCH = 5_000;

/** How many pets match the search words, counted up to SPARSE_SEARCH (PostgreSQL's probe). */
export function searchProbeStatement(words: readonly string[], d: Dialect): Statement {
  const search = d.searchPets('$1', false);
  return {
    sql: `SELECT count(*) AS n FROM (SELECT 1 FROM ${search.from} WHERE ${search.where} AND p.${LIVE} LIMIT $2) AS s`,
    params: [d.searchTerms(words), SPARSE_SEARCH],
  };
}

export function petListStatement(q: PetQuery, d: Dialect, sparse = false): Statement {
  const params: SqlParam[] = [];
  const param = (value: SqlParam) => `$${params.push(value)}`;
  const where: string[] = [];
  const dir = q.descending ? 'DESC' : 'ASC';
  const after = q.descending ? '<' : '>';
  let from: string;
  let id: string; // the pet id the statement pages by: the driving index's own column
  let columns: string;
  let c: string; // how the pets' columns are named
  const tags = q.tags ?? [];
  if (q.words !== undefined) {
    // The search index drives, in id order; the other filters are checked per match.
    const search = d.searchPets(param(d.searchTerms(q.words)), sparse);
    ({ from, id } = search);
    where.push(search.where);
    columns = JOINED_COLUMNS;
    c = 'p.';
  } else if (tags.length > 0) {
    // pet_tags' primary key (tag, pet_id) drives, in id order, for the first tag.
    from = 'pet_tags t0 CROSS JOIN pets p';
    id = 't0.pet_id';
    where.push(`t0.tag = ${param(tags[0])}`, 'p.id = t0.pet_id');
    columns = JOINED_COLUMNS;
    c = 'p.';
  } else {
    from = 'pets';
    id = 'id';
    columns = PET_COLUMNS;
    c = '';
  }
  where.push(`${c}${LIVE}`);
  if (q.status !== undefined) where.push(`${c}status = ${param(q.status)}`);
  if (q.categoryId !== undefined) where.push(`${c}category_id = ${param(q.categoryId)}`);
  for (const tag of q.words !== undefined ? tags : tags.slice(1)) {
    where.push(`EXISTS (SELECT 1 FROM pet_tags t WHERE t.tag = ${param(tag)} AND t.pet_id = ${c}id)`);
  }
  let order: string;
  if (q.order === undefined || q.order === 'id') {
    if (q.after !== undefined) where.push(`${id} ${after} ${param(q.after.id)}`);
    order = `${id} ${dir}`;
  } else {
    const key = PET_SORT_EXPRESSIONS[q.order];
    if (q.after !== undefined) where.push(`(${key}, id) ${after} (${param(q.after.value ?? null)}, ${param(q.after.id)})`);
    order = `${key} ${dir}, id ${dir}`;
  }
  return { sql: `SELECT ${columns} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${param(q.limit)}`, params };
}
