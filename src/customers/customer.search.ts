// What `q` of GET /customers compares (docs/api.md, "Customers"): a part of the name, the e-mail
// address or the telephone number, folded as the pet search folds text (lower case, no accents).
// A shop's customers are thousands, not millions: the engines scan the folded text of the live
// customers for the part, the same way on each (storage/sql/sql.customers.ts).
import { fold } from '../pets/pet.fold.ts';
import type { Customer } from './customer.schemas.ts';

/** A query written as a telephone number: digits, with the separators people write them with. */
const PHONE_LIKE = /^\+?[0-9 ().-]*[0-9][0-9 ().-]*$/;

const digits = (text: string): string => text.replace(/[^0-9]/g, '');

/** What the engines keep to search a customer by: the folded name, e-mail and telephone, and the telephone's digits, one per line. */
export function customerSearchText(c: Pick<Customer, 'name' | 'email' | 'phone'>): string {
  return [fold(c.name), c.email === undefined ? '' : fold(c.email), c.phone === undefined ? '' : `${fold(c.phone)}\n${digits(c.phone)}`].join('\n');
}

/** The part of the search text `q` asks for: its digits when written as a telephone number, else its folded, trimmed text. */
export function customerNeedle(q: string): string {
  const trimmed = q.trim();
  return PHONE_LIKE.test(trimmed) && digits(trimmed).length > 0 ? digits(trimmed) : fold(trimmed);
}
