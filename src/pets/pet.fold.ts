// What search and name order compare (pet.search.ts): text folded to lower case without accents.
// A leaf module, so that the field table (pet.schemas.ts) can say how `sort=name` orders.

// Letters NFKD does not decompose but a reader takes for a plain one with a mark.
const FOLDS: Record<string, string> = { ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', æ: 'ae', œ: 'oe', ß: 'ss', ı: 'i', ħ: 'h' };
const FOLDABLE = new RegExp(`[${Object.keys(FOLDS).join('')}]`, 'gu');
/** Lower case, accents removed (é → e, ø → o, ß → ss): what search and name order compare. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(FOLDABLE, (c) => FOLDS[c]);
}

/** The key `sort=name` orders by: the folded name, so "émile" sorts with "Emile", between "Ebony" and "Fido". */
export function nameKey(name: string): string {
  return fold(name);
}
