// How GET /pets turns its query into a keyset listing: the storage's query, the scope a cursor is
// bound to, and a row's position in the order asked for. Every combination of filters and sort is
// served (how, within what cost: storage/sql/sql.pet-list.ts), except `id` with a search, a tag
// filter or another order than id; docs/api.md ("Search, tags and sort orders") tells the same.
import { invalid } from '../errors.ts';
import type { PetOrderKey, PetPosition, PetQuery } from './pet.store.ts';
import { SORTED_FIELDS, type ListPetsQuery, type Pet, type PetSort } from './pet.schemas.ts';
import { words } from './pet.search.ts';
import { breedTerm, normaliseMicrochip } from './pet.record.ts';

/** A listing as the storage is asked for it (without its page size and position), and how its cursors read. */
export interface PetListing {
  readonly query: Omit<PetQuery, 'limit' | 'after'>;
  /** What a cursor of this listing is bound to: a cursor of another listing is refused (invalid_cursor). */
  readonly scope: string;
  /** A row's position, as its cursor carries it. */
  position(pet: Pet): string;
  /** A position the storage names (where a bounded walk stopped), as a cursor carries it. */
  at(position: PetPosition): string;
  /** The position a cursor of this listing carries. */
  parse(position: string): PetPosition;
  /** `id=…`: the animals asked for, in the listing's order (read one by one, not through an index). */
  readonly ids?: readonly number[];
}

export function petListing(q: ListPetsQuery): PetListing {
  const sort: PetSort = q.sort ?? 'id';
  const descending = sort.startsWith('-');
  const order = (descending ? sort.slice(1) : sort) as PetOrderKey;
  // Every animal has every word of a `q` without any (punctuation only): such a `q` filters nothing.
  const found = q.q === undefined ? [] : words(q.q);
  const searched = found.length === 0 ? undefined : found;
  const breed = q.breed === undefined ? undefined : words(q.breed);
  if (breed?.length === 0) {
    throw invalid('query parameter "breed" must hold a letter or a digit: a breed is found by its words', {
      in: 'query',
      field: 'breed',
      rule: 'pattern',
      message: 'type a word of the breed',
    });
  }
  const microchip = q.microchip === undefined ? undefined : normaliseMicrochip(q.microchip, { in: 'query', field: 'microchip' });
  if (q.id !== undefined && (searched !== undefined || q.tag !== undefined || breed !== undefined)) {
    const [parameter, filter] = searched !== undefined ? ['q', 'search'] : q.tag !== undefined ? ['tag', 'tag filter'] : ['breed', 'breed filter'];
    throw invalid(`query parameter "id" cannot be combined with "${parameter}": it names the animals itself`, {
      in: 'query',
      field: 'id',
      rule: 'exclusive',
      message: `names the animals itself: leave out the ${filter}`,
    });
  }
  if (q.id !== undefined && order !== 'id') {
    throw invalid(`query parameter "sort" ${sort} cannot be combined with "id": animals named by id are ordered by id (sort=id or sort=-id)`, {
      in: 'query',
      field: 'sort',
      rule: 'exclusive',
      message: 'animals named by ID are listed in ID order only',
    });
  }
  // Without categoryId, sort, tags or q the scope is the one cursors had before those existed, so
  // cursors issued then keep working.
  let scope = `pets;${q.status ?? ''}${q.categoryId === undefined ? '' : `;${q.categoryId}`}`;
  if (sort !== 'id') scope += `;sort=${sort}`;
  if (q.tag !== undefined) scope += `;tag=${q.tag.join(',')}`;
  if (searched !== undefined) scope += `;q=${searched.join(' ')}`;
  if (q.sex !== undefined) scope += `;sex=${q.sex}`;
  if (breed !== undefined) scope += `;breed=${breed.join(' ')}`;
  if (q.recordComplete !== undefined) scope += `;record=${q.recordComplete}`;
  if (microchip !== undefined) scope += `;chip=${microchip}`;
  // The breed filter's terms sit in the tag filter's index (pet.record.ts, breedTerms).
  const terms = [...(q.tag ?? []), ...(breed ?? []).map(breedTerm)];
  const ids = q.id === undefined ? undefined : [...q.id].sort((a, b) => (descending ? b - a : a - b));
  if (ids !== undefined) scope += `;id=${ids.join(',')}`;
  return {
    ids,
    query: {
      order,
      descending,
      status: q.status,
      categoryId: q.categoryId,
      tags: terms.length === 0 ? undefined : terms,
      words: searched,
      sex: q.sex,
      recordComplete: q.recordComplete === undefined ? undefined : q.recordComplete === 'true',
      microchip,
    },
    scope,
    position: order === 'id' ? (pet) => String(pet.id) : (pet) => JSON.stringify([sortValue(order, pet), pet.id]),
    at: (position) => (order === 'id' ? String(position.id) : JSON.stringify([position.value, position.id])),
    parse:
      order === 'id'
        ? (position) => ({ id: Number(position) })
        : (position) => {
            const [value, id] = JSON.parse(position) as [string | number, number];
            return { id, value };
          },
  };
}

/** Whether a pet named by `id=` passes the listing's other filters (status, category, sex, record, microchip). */
export function passes(query: PetListing['query'], pet: Pet): boolean {
  return (
    (query.status === undefined || pet.status === query.status) &&
    (query.categoryId === undefined || pet.categoryId === query.categoryId) &&
    (query.sex === undefined || pet.sex === query.sex) &&
    (query.recordComplete === undefined || pet.recordComplete === query.recordComplete) &&
    (query.microchip === undefined || pet.microchip === query.microchip)
  );
}

/** A pet's place in an order other than by id, as the field table says (PET_FIELDS' `sortable`) and the engines' indexes hold it. */
function sortValue(order: PetOrderKey, pet: Pet): string | number {
  const sorted = SORTED_FIELDS.find((f) => f.member === order)?.sortable;
  if (sorted === undefined) throw new Error(`${order} is not a sortable field of PET_FIELDS`);
  return sorted.value(pet);
}
