// The dealer's record book as CSV (docs/api.md, "Dealer's record book"), written by src/csv.ts:
// one row per animal acquired or disposed of in the period, with what New York Agriculture and
// Markets Law §402 asks a dealer to record of each. Pure, but for the pages it asks for.
import { csvLine as line } from '../csv.ts';
import type { CustomerRecord } from '../customers/customer.schemas.ts';
import { birthWords, breedWords, sourceWords } from '../pets/pet.record-words.ts';
import type { DealerBookEntry, DealerBookRepository } from './dealer-book.store.ts';

export const DEALER_BOOK_HEADER = [
  'animal_id',
  'name',
  'kind',
  'breed',
  'sex',
  'birth_date',
  'colour',
  'microchip',
  'acquired_at',
  'acquired_from',
  'acquired_from_address',
  'disposed_at',
  'method',
  'buyer_name',
  'buyer_address',
  'price',
  'currency',
  'deposit',
  'order_id',
] as const;

/** Rows read from the database per page: the memory a book takes, whatever its length. */
export const DEALER_BOOK_PAGE = 500;

const address = (c: CustomerRecord | undefined) => {
  const a = c?.address;
  return a === undefined ? undefined : [a.line1, a.line2, a.postalCode, a.city, a.region, a.country].filter((p) => p !== undefined).join(', ');
};

/** The CSV row of one animal. */
export function dealerBookRow(e: DealerBookEntry): string {
  const p = e.pet;
  const price = e.sale?.price;
  return line([
    p.id,
    p.name,
    e.kind,
    breedWords(p.breed),
    p.sex,
    birthWords(p),
    p.colour,
    p.microchip,
    // The day the record says it was acquired; else the day it was added to the store.
    p.acquiredAt ?? p.createdAt,
    sourceWords(p.source),
    p.source?.address,
    e.sale?.updatedAt,
    e.sale === undefined ? undefined : (e.sale.method ?? 'sale'),
    e.buyer?.name,
    address(e.buyer),
    price === undefined ? undefined : (price.amount / 100).toFixed(2),
    price?.currency,
    e.sale?.deposit === undefined ? undefined : (e.sale.deposit.amount / 100).toFixed(2),
    e.sale?.id,
  ]);
}

/** The book of [from, to): its header and rows, `pageSize` animals at a time. */
export async function* dealerBook(repo: DealerBookRepository, from: Date, to: Date, pageSize = DEALER_BOOK_PAGE): AsyncGenerator<string> {
  yield line(DEALER_BOOK_HEADER);
  for (let afterId = 0; ; ) {
    const page = await repo.page({ from, to, afterId, limit: pageSize });
    if (page.length > 0) yield page.map(dealerBookRow).join('');
    if (page.length < pageSize) return;
    afterId = page[page.length - 1].pet.id;
  }
}
