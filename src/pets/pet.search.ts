// The one rule of what search and name order compare (docs/api.md, "Search"): text folded to
// lower case without accents, cut into words of letters and digits. Both engines index the words
// this module writes (SQLite FTS5, PostgreSQL tsvector) and are asked for the words it reads from
// `q`, so a match is the same on each, whatever collation or extension the database has.

import { fold } from './pet.fold.ts';
import { SEARCHED_MEMBERS, type Pet } from './pet.schemas.ts';

const WORD = /[\p{L}\p{N}]+/gu;

/** A word longer than this is indexed and searched by its first 100 characters (an index entry stays small). */
export const WORD_MAX = 100;

/** The words of `text`, folded, in order, each cut to WORD_MAX characters. */
export function words(text: string): string[] {
  return (fold(text).match(WORD) ?? []).map((w) => (w.length > WORD_MAX ? [...w].slice(0, WORD_MAX).join('') : w));
}

/** What the engines index for a pet: the distinct words of its searched fields (PET_FIELDS: name, description, tags, breed, colour), one space between. */
export function searchText(pet: Partial<Pet>): string {
  const text = SEARCHED_MEMBERS.map((member) => {
    const value = pet[member];
    if (Array.isArray(value)) return value.join(' ');
    if (typeof value === 'object' && value !== null)
      return Object.values(value)
        .filter((v) => typeof v === 'string')
        .join(' '); // a breed's names
    return typeof value === 'string' ? value : '';
  });
  return [...new Set(words(text.join(' ')))].join(' ');
}
