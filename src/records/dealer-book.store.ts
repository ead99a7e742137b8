// The dealer's record book's storage (storage/sql/sql.dealer-book.ts): one entry per animal
// acquired or disposed of in a period, read a page at a time in id order so that any number of
// animals streams at constant memory.
import type { CustomerRecord } from '../customers/customer.schemas.ts';
import type { Pet } from '../pets/pet.schemas.ts';
import type { Order } from '../store/order.schemas.ts';

/** One animal of the book: the animal (withdrawn ones too), its kind, and its sale and buyer when it was disposed of. */
export interface DealerBookEntry {
  readonly pet: Pet;
  readonly kind: string;
  readonly sale?: Order;
  readonly buyer?: CustomerRecord;
}

export interface DealerBookQuery {
  /** The period's first instant (inclusive) and its end (exclusive), each at a UTC day's start. */
  readonly from: Date;
  readonly to: Date;
  readonly afterId: number;
  readonly limit: number;
}

export interface DealerBookRepository {
  /**
   * The animals acquired (their record's `acquiredAt`; without one, the day they were added to the
   * store) or delivered to a buyer in the period, ascending by id after `afterId`.
   */
  page(query: DealerBookQuery): Promise<DealerBookEntry[]>;
}
