// The statement of a page of pets (PetRepository.list), written once for both engines: which index
// serves which listing is written beside each index (../migrations/0009-*/*.sql, 0014-*), and
// test/storage/pet-plans.test.ts shows the plans use them.
import { SEARCH_WALK, SORTED_FEW, SORTED_FIELDS, UNPRICED_SORT_KEY } from '../../pets/pet.schemas.ts';
import { PET_COLUMNS } from '../rows.ts';
import type { PetOrderKey, PetPosition, PetQuery } from '../../pets/pet.store.ts';
import { LIVE, type Dialect, type SqlParam } from './sql.db.ts';

/**
 * The sort expressions of the field table's sortable fields (PET_FIELDS' `sortable`), written as the
 * indexes are (migrations 0009, 0014): an expression index is used only for the same expression.
 */
const PET_SORT_EXPRESSIONS: ReadonlyMap<PetOrderKey, string> = new Map(
  SORTED_FIELDS.map((f) => [f.member, f.sortable?.column ?? (f.kind === 'price' ? `coalesce(${f.columns[0]}, ${UNPRICED_SORT_KEY})` : f.columns[0])]),
);

/** The expression `order` sorts by; the pets domain asks only for sortable fields. */
export function sortExpression(order: PetOrderKey | undefined): string {
  const key = order === undefined ? undefined : PET_SORT_EXPRESSIONS.get(order);
  if (key === undefined) throw new Error(`no sort expression for ${order}`);
  return key;
}

const qualified = (prefix: string) =>
  PET_COLUMNS.split(', ')
    .map((c) => `${prefix}${c}`)
    .join(', ');
const JOINED_COLUMNS = qualified('p.');
const WALKED_COLUMNS = qualified('walked.');

export interface Statement {
  readonly sql: string;
  readonly params: SqlParam[];
}

/**
 * How a search in id order is read where counting its matches reads every one (PostgreSQL's GIN
 * index, Dialect.countReadsEveryMatch): the words of the SEARCH_SAMPLE live pets from the page's
 * position, in id order, are checked. Where at least SEARCH_DENSE of them match, the words are
 * common there, and the page is found by walking the id index checking each pet (the `walk`
 * plan), for at most SEARCH_WALK pets; a walk that comes up short (the other filters rare among
 * the matches) answers what it found and where it stopped. Otherwise the matches are collected
 * from the search index (`sparse`), which costs in proportion to how many there are: few, since
 * the sample found them rare.
 */
export const SEARCH_SAMPLE = 500;
export const SEARCH_DENSE = 5;

/**
 * One step of petListPlan. `pets`: the statement reads pets — the page, the last such step's rows
 * — and the engine answers with how many it read; else it reads one row of values, the answer.
 */
export interface PlanStep {
  readonly kind: 'page' | 'sample' | 'sparse' | 'count' | 'few' | 'walk' | 'bound';
  readonly statement: Statement;
  readonly pets: boolean;
}

/**
 * How a page of pets is read, as steps the engine runs in order (SQLite in one synchronous read,
 * PostgreSQL one query after the other), sending each step's answer back; the plan returns where a
 * bounded walk stopped short of a page, if it did (PetPage.walkedTo). The one place that decides;
 * the engines only run statements. Any filter in another order than id (docs/api.md, "Search,
 * tags and sort orders"; migration 14 left one index per sort key):
 * - a microchip number is looked up in its unique index (at most one pet, in any order);
 * - a status, a category, a sex or a record state, common in practice, is walked first in the sort key's index; a walk
 *   that comes up short counts the filter's pets on its id-order index, and sorts them if few;
 * - a search or a tag filter counts its matches on its own index first (up to SORTED_FEW + 1):
 *   the few are read and sorted, the many walked. On PostgreSQL a search is sampled instead of
 *   counted (a GIN index is read as a bitmap of every match before a count can stop), and one
 *   common in the first SEARCH_SAMPLE pets is walked at once;
 * - a walk reads at most SEARCH_WALK pets; short of a page with more pets beyond, it stops there.
 */
export function* petListPlan(q: PetQuery, d: Dialect): Generator<PlanStep, PetPosition | undefined, SqlParam[] | undefined> {
  if (q.microchip !== undefined) {
    // At most one live pet has the number: pets_live_microchip finds it, in any order.
    yield { kind: 'page', statement: microchipStatement(q), pets: true };
    return undefined;
  }
  const filtered =
    q.words !== undefined ||
    (q.tags?.length ?? 0) > 0 ||
    q.status !== undefined ||
    q.categoryId !== undefined ||
    q.sex !== undefined ||
    q.recordComplete !== undefined;
  const idOrder = q.order === undefined || q.order === 'id';
  if (idOrder && q.words !== undefined && d.countReadsEveryMatch) return yield* searchInIdOrder(q, d);
  if (idOrder || !filtered) {
    yield { kind: 'page', statement: petListStatement(q, d), pets: true };
    return undefined;
  }
  const countIsCheap = !(q.words !== undefined && d.countReadsEveryMatch);
  const few = (matches: SqlParam[] | undefined) => Number(matches?.[0] ?? 0) <= SORTED_FEW;
  let walkFirst = q.words === undefined && (q.tags?.length ?? 0) === 0;
  if (!countIsCheap)
    walkFirst = Number((yield { kind: 'sample', statement: searchSampleStatement({ ...q, after: undefined }, d), pets: false })?.[0] ?? 0) >= SEARCH_DENSE;
  if (!walkFirst && few(yield { kind: 'count', statement: matchCountStatement(q, d), pets: false })) {
    yield { kind: 'few', statement: sortedFewStatement(q, d), pets: true };
    return undefined;
  }
  const found = yield { kind: 'walk', statement: sortedWalkStatement(q), pets: true };
  if (Number(found?.[0] ?? 0) >= q.limit) return undefined;
  const end = yield { kind: 'bound', statement: walkBoundStatement(q), pets: false };
  // No SEARCH_WALK-th pet: the walk reached the end of the order, and the page is complete.
  if (end === undefined) return undefined;
  if (walkFirst && countIsCheap && few(yield { kind: 'count', statement: matchCountStatement(q, d), pets: false })) {
    yield { kind: 'few', statement: sortedFewStatement(q, d), pets: true };
    return undefined;
  }
  return boundPosition(end);
}

/** A search in id order where a count reads every match (SEARCH_SAMPLE above). */
function* searchInIdOrder(q: PetQuery, d: Dialect): Generator<PlanStep, PetPosition | undefined, SqlParam[] | undefined> {
  const sampled = yield { kind: 'sample', statement: searchSampleStatement(q, d), pets: false };
  if (Number(sampled?.[0] ?? 0) < SEARCH_DENSE) {
    yield { kind: 'sparse', statement: petListStatement(q, d, 'sparse'), pets: true };
    return undefined;
  }
  const found = yield { kind: 'walk', statement: petListStatement(q, d, 'walk'), pets: true };
  if (Number(found?.[0] ?? 0) >= q.limit) return undefined;
  const params: SqlParam[] = [];
  const end = yield {
    kind: 'bound',
    statement: { sql: fromPosition(q, (value) => `$${params.push(value)}`, 'id', `LIMIT 1 OFFSET ${SEARCH_WALK - 1}`), params },
    pets: false,
  };
  // No SEARCH_WALK-th pet: the walk reached the end, and the page is complete.
  return end === undefined ? undefined : { id: Number(end[0]) };
}

/** The position a walk's bound row (sort value, id) stands for. */
const boundPosition = ([value, id]: SqlParam[]): PetPosition => ({ value: value as string | number, id: Number(id) });

/**
 * The pets the filter's own index holds — the search's matches, else the first tag's pets, else
 * the pets of the status, category, sex or record state (their id-order indexes, migrations 5 and 15) — counted up to
 * SORTED_FEW + 1.
 */
function matchCountStatement(q: PetQuery, d: Dialect): Statement {
  const params: SqlParam[] = [];
  const param = (value: SqlParam) => `$${params.push(value)}`;
  return { sql: `SELECT count(*) AS n FROM (${filterMatches(q, d, param)} LIMIT ${SORTED_FEW + 1}) AS m`, params };
}

function filterMatches(q: PetQuery, d: Dialect, param: (value: SqlParam) => string, columns = 'id'): string {
  if (q.words !== undefined) return d.searchIds(param(d.searchTerms(q.words)));
  if (q.tags !== undefined && q.tags.length > 0) return `SELECT pet_id FROM pet_tags WHERE tag = ${param(q.tags[0])}`;
  return `SELECT ${columns} FROM pets WHERE ${[LIVE, ...rowFilters(q, param, '')].join(' AND ')}`;
}

/**
 * A page of a filter whose index holds at most SORTED_FEW matches: all of them read by that index
 * and sorted. A search or a tag filter drives its statement (petListStatement); the status and
 * category are read in a subquery of their own, so that no planner walks the sort's index instead
 * looking for them.
 */
function sortedFewStatement(q: PetQuery, d: Dialect): Statement {
  if (q.words !== undefined || (q.tags?.length ?? 0) > 0) return petListStatement(q, d, 'sparse');
  const params: SqlParam[] = [];
  const param = (value: SqlParam) => `$${params.push(value)}`;
  const key = sortExpression(q.order);
  const dir = q.descending ? 'DESC' : 'ASC';
  const matched = filterMatches(q, d, param, `${PET_COLUMNS}, ${key} AS sort_key`);
  const after = q.after === undefined ? '' : ` WHERE (sort_key, id) ${q.descending ? '<' : '>'} (${param(q.after.value ?? null)}, ${param(q.after.id)})`;
  return {
    sql: `SELECT ${PET_COLUMNS} FROM (${matched} LIMIT ${SORTED_FEW + 1}) AS matched${after} ORDER BY sort_key ${dir}, id ${dir} LIMIT ${param(q.limit)}`,
    params,
  };
}

/**
 * The live pets in the order `q` asks for, from its position: what a walk reads, the sort value
 * first as sort_key. Ordered by the output columns, so that PostgreSQL sees the subquery's order
 * is the one the outer query asks for (and sorts nothing).
 */
function sortedFrom(q: PetQuery, param: (value: SqlParam) => string, columns: string, tail: string): string {
  const key = sortExpression(q.order);
  const dir = q.descending ? 'DESC' : 'ASC';
  const after = q.after === undefined ? '' : ` AND (${key}, id) ${q.descending ? '<' : '>'} (${param(q.after.value ?? null)}, ${param(q.after.id)})`;
  return `SELECT ${key} AS sort_key, ${columns} FROM pets WHERE ${LIVE}${after} ORDER BY sort_key ${dir}, id ${dir} ${tail}`;
}

/**
 * A page found by walking the sort's index from the position, at most SEARCH_WALK pets, each
 * checked against every filter: the words against its search text (a word of it, or the start of
 * one — what the search index matches, pets/pet.search.ts), the tags by pet_tags' primary key.
 */
function sortedWalkStatement(q: PetQuery): Statement {
  const params: SqlParam[] = [];
  const param = (value: SqlParam) => `$${params.push(value)}`;
  const walked = sortedFrom(q, param, `${PET_COLUMNS}, search_text`, `LIMIT ${SEARCH_WALK}`);
  // Named `walked`, not `p`: a plan then tells this bounded subquery's rows from the table's.
  const where = rowFilters(q, param, 'walked.');
  const dir = q.descending ? 'DESC' : 'ASC';
  return {
    sql: `SELECT ${WALKED_COLUMNS} FROM (${walked}) AS walked${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY walked.sort_key ${dir}, walked.id ${dir} LIMIT ${param(q.limit)}`,
    params,
  };
}

/**
 * The page of a microchip number: the one live pet pets_live_microchip finds, checked against the
 * other filters; none after a cursor (the first page held it).
 */
function microchipStatement(q: PetQuery): Statement {
  const params: SqlParam[] = [];
  const param = (value: SqlParam) => `$${params.push(value)}`;
  const where = [LIVE, `microchip = ${param(q.microchip!)}`, ...rowFilters(q, param, '')];
  if (q.after !== undefined) where.push(`id <> ${param(q.after.id)}`);
  return { sql: `SELECT ${PET_COLUMNS} FROM pets WHERE ${where.join(' AND ')} LIMIT ${param(q.limit)}`, params };
}

/** The conditions of the filters a pet's own columns answer (status, category, sex, record state). */
function columnFilters(q: PetQuery, param: (value: SqlParam) => string, c: string): string[] {
  const where: string[] = [];
  if (q.status !== undefined) where.push(`${c}status = ${param(q.status)}`);
  if (q.categoryId !== undefined) where.push(`${c}category_id = ${param(q.categoryId)}`);
  if (q.sex !== undefined) where.push(`${c}sex = ${param(q.sex)}`);
  // 1 or 0 as SQLite keeps a boolean; PostgreSQL reads either as its boolean.
  if (q.recordComplete !== undefined) where.push(`${c}record_complete = ${param(q.recordComplete ? 1 : 0)}`);
  return where;
}

/** The checks of a walk: every filter of `q`, per pet (`c`: how its columns are named). */
function rowFilters(q: PetQuery, param: (value: SqlParam) => string, c: string): string[] {
  const where = columnFilters(q, param, c);
  // search_text is the folded words, one space between: a word starts where a space precedes it.
  for (const word of q.words ?? []) where.push(`(' ' || ${c}search_text) LIKE ${param(`% ${word}%`)}`);
  for (const tag of q.tags ?? []) where.push(`EXISTS (SELECT 1 FROM pet_tags t WHERE t.tag = ${param(tag)} AND t.pet_id = ${c}id)`);
  return where;
}

/** Where a walk from the page's position ends: the SEARCH_WALK-th pet's sort value and id, or no row. */
function walkBoundStatement(q: PetQuery): Statement {
  const params: SqlParam[] = [];
  const param = (value: SqlParam) => `$${params.push(value)}`;
  return { sql: sortedFrom(q, param, 'id', `LIMIT 1 OFFSET ${SEARCH_WALK - 1}`), params };
}

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
  where.push(`${c}${LIVE}`, ...columnFilters(q, param, c));
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
    const key = sortExpression(q.order);
    if (q.after !== undefined) where.push(`(${key}, id) ${after} (${param(q.after.value ?? null)}, ${param(q.after.id)})`);
    order = `${key} ${dir}, id ${dir}`;
  }
  return { sql: `SELECT ${columns} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${param(q.limit)}`, params };
}
