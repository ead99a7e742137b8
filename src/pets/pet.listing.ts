// How GET /pets turns its query into a keyset listing: which filter and sort combinations an index
// serves (the others are refused with 400, never run as a scan), the scope a cursor is bound to,
// and a row's position in the order asked for. docs/api.md ("Listing animals") tells the same.
import { invalid } from '../errors.ts';
import type { PetOrderKey, PetPosition, PetQuery } from '../storage/storage.ts';
import { UNPRICED_SORT_KEY, type ListPetsQuery, type Pet, type PetSort } from './pet.schemas.ts';
import { nameKey, words } from './pet.search.ts';

/** A listing as the storage is asked for it (without its page size and position), and how its cursors read. */
export interface PetListing {
  readonly query: Omit<PetQuery, 'limit' | 'after'>;
  /** What a cursor of this listing is bound to: a cursor of another listing is refused (invalid_cursor). */
  readonly scope: string;
  /** A row's position, as its cursor carries it. */
  position(pet: Pet): string;
  /** The position a cursor of this listing carries. */
  parse(position: string): PetPosition;
  /** `id=…`: the animals asked for, in the listing's order (read one by one, not through an index). */
  readonly ids?: readonly number[];
}

export function petListing(q: ListPetsQuery): PetListing {
  const sort: PetSort = q.sort ?? 'id';
  const descending = sort.startsWith('-');
  const order = (descending ? sort.slice(1) : sort) as PetOrderKey;
  const searched = q.q === undefined ? undefined : words(q.q);
  if (searched !== undefined && searched.length === 0) {
    throw invalid('query parameter "q" must contain a word: a letter or a digit', {
      in: 'query',
      field: 'q',
      rule: 'pattern',
      message: 'type a word: at least one letter or digit',
    });
  }
  if (q.id !== undefined && (searched !== undefined || q.tag !== undefined)) {
    throw invalid(`query parameter "id" cannot be combined with ${searched !== undefined ? '"q"' : '"tag"'}: it names the animals itself`, {
      in: 'query',
      field: 'id',
      rule: 'exclusive',
      message: `names the animals itself: leave out the ${searched !== undefined ? 'search' : 'tag filter'}`,
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
  // A search or a tag filter is walked in id order by its index (FTS5 rowids, the tsvector GIN
  // index, pet_tags' primary key); ordering its matches by anything else would sort them all first.
  if (order !== 'id' && (searched !== undefined || q.tag !== undefined)) {
    throw invalid(
      `query parameter "sort" ${sort} cannot be combined with ${searched !== undefined ? '"q"' : '"tag"'}: searches and tag filters are ordered by id (sort=id or sort=-id); see docs/api.md, "Listing animals"`,
      { in: 'query', field: 'sort', rule: 'exclusive', message: `a ${searched !== undefined ? 'search' : 'tag filter'} is listed in ID order only` },
    );
  }
  // Without categoryId, sort, tags or q the scope is the one cursors had before those existed, so
  // cursors issued then keep working.
  let scope = `pets;${q.status ?? ''}${q.categoryId === undefined ? '' : `;${q.categoryId}`}`;
  if (sort !== 'id') scope += `;sort=${sort}`;
  if (q.tag !== undefined) scope += `;tag=${q.tag.join(',')}`;
  if (searched !== undefined) scope += `;q=${searched.join(' ')}`;
  const ids = q.id === undefined ? undefined : [...q.id].sort((a, b) => (descending ? b - a : a - b));
  if (ids !== undefined) scope += `;id=${ids.join(',')}`;
  return {
    ids,
    query: { order, descending, status: q.status, categoryId: q.categoryId, tags: q.tag, words: searched },
    scope,
    position: order === 'id' ? (pet) => String(pet.id) : (pet) => JSON.stringify([sortValue(order, pet), pet.id]),
    parse:
      order === 'id'
        ? (position) => ({ id: Number(position) })
        : (position) => {
            const [value, id] = JSON.parse(position) as [string | number, number];
            return { id, value };
          },
  };
}

/** Whether a pet named by `id=` passes the listing's other filters (status, category). */
export function passes(query: PetListing['query'], pet: Pet): boolean {
  return (query.status === undefined || pet.status === query.status) && (query.categoryId === undefined || pet.categoryId === query.categoryId);
}

/** A pet's place in an order other than by id, as the engines' indexes hold it. */
function sortValue(order: PetOrderKey, pet: Pet): string | number {
  if (order === 'name') return nameKey(pet.name);
  if (order === 'price') return pet.price?.amount ?? UNPRICED_SORT_KEY;
  return pet.createdAt;
}
