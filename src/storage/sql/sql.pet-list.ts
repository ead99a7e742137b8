// The statement of a page of pets (PetRepository.list), written once for both engines: which index
// serves which listing is written beside each migration 9 index (../migrations/0009-*/*.sql),
// and test/storage/pet-plans.test.ts shows the plans use them.
import { UNPRICED_SORT_KEY } from '../../pets/pet.schemas.ts';
import { PET_COLUMNS } from '../rows.ts';
import type { PetOrderKey, PetQuery } from '../../pets/pet.store.ts';
import { LIVE, type Dialect, type SqlParam } from './sql.db.ts';

/** The sort expressions, as the migration 9 indexes are written (an expression index is used only for the same expression). */
export const PET_SORT_EXPRESSIONS: Record<Exclude<PetOrderKey, 'id'>, string> = {
  name: 'name_key',
  price: `coalesce(price_amount, ${UNPRICED_SORT_KEY})`,
  createdAt: 'created_at',
};

const qualified = (prefix: string) =>
  PET_COLUMNS.split(', ')
    .map((c) => `${prefix}${c}`)
    .join(', ');
const JOINED_COLUMNS = qualified('p.');

export interface Statement {
  readonly sql: string;
  readonly params: SqlParam[];
}

/**
 * How PostgresPets plans a search (Dialect.searchPets): it reads the words of the SEARCH_SAMPLE
 * live pets from the page's position, in id order. Where at least SEARCH_DENSE of them match, the
 * words are common there, and the page is found by walking the id index checking each pet (the
 * `walk` plan), for at most SEARCH_WALK pets. Otherwise — or when the walk comes up short, the
 * other filters being rare among the matches — the matches are collected from the search index
 * (`sparse`), which costs in proportion to how many there are.
 */
export const SEARCH_SAMPLE = 500;
export const SEARCH_DENSE = 5;
export const SEARCH_WALK = 20_000;

/** The next SEARCH_SAMPLE live pets from the position of the page `q`, and how many match its words (`m`). */
export function searchSampleStatement(q: PetQuery, d: Dialect): Statement {
  const params: SqlParam[] = [d.searchTerms(q.words ?? [])];
  const param = (value: SqlParam) => `$${params.push(value)}`;
  const search = d.searchPets('$1', false);
  return { sql: `SELECT count(*) FILTER (WHERE ${search.where}) AS m FROM (${fromPosition(q, param, 'search', `LIMIT ${SEARCH_SAMPLE}`)}) AS p`, params };
}

/** `column` of the live pets from the position of the page `q`, in its id order, then `tail` (LIMIT, OFFSET). */
function fromPosition(q: PetQuery, param: (value: SqlParam) => string, column: string, tail: string): string {
  const from = q.after === undefined ? '' : ` AND id ${q.descending ? '<' : '>'} ${param(q.after.id)}`;
  return `SELECT ${column} FROM pets WHERE ${LIVE}${from} ORDER BY id ${q.descending ? 'DESC' : 'ASC'} ${tail}`;
}

/**
 * The statement of a page. `walk` (searches only): the search reads at most SEARCH_WALK live pets
 * from the page's position; fewer rows than the limit then mean "not within the walk", not "no more".
 */
export function petListStatement(q: PetQuery, d: Dialect, plan: 'dense' | 'walk' | 'sparse' = 'dense'): Statement {
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
    const search = d.searchPets(param(d.searchTerms(q.words)), plan === 'sparse');
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
    if (plan === 'walk' && q.words !== undefined) {
      // Up to the SEARCH_WALK-th live pet from the position (none: to the end), read once by its id index.
      const last = fromPosition(q, param, 'id', `LIMIT 1 OFFSET ${SEARCH_WALK - 1}`);
      where.push(`${id} ${q.descending ? '>=' : '<='} coalesce((${last}), ${q.descending ? 0 : '9223372036854775807'})`);
    }
  } else {
    const key = PET_SORT_EXPRESSIONS[q.order];
    if (q.after !== undefined) where.push(`(${key}, id) ${after} (${param(q.after.value ?? null)}, ${param(q.after.id)})`);
    order = `${key} ${dir}, id ${dir}`;
  }
  return { sql: `SELECT ${columns} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${param(q.limit)}`, params };
}
