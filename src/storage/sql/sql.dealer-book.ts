// The dealer's book: every animal (withdrawn ones too) acquired in the period (its record's
// acquiredAt, a day; without one, the instant it was added) or delivered to a buyer in it, with its category, its delivered order and that order's customer as the store holds them.
// Walked by the pets' primary key a page at a time: the pages of one book read the table once.
import type { DealerBookEntry, DealerBookQuery, DealerBookRepository } from '../../records/dealer-book.store.ts';
import { CUSTOMER_COLUMNS, ORDER_COLUMNS, PET_COLUMN_NAMES, toCustomerRecord, toOrder, toPet, type CustomerRow, type OrderRow } from '../rows.ts';
import type { SqlDb } from './sql.db.ts';

const prefixed = (alias: string, columns: string, prefix: string) =>
  columns
    .split(', ')
    .map((c) => `${alias}.${c} AS ${prefix}${c}`)
    .join(', ');
const unprefixed = (row: Record<string, unknown>, prefix: string) =>
  Object.fromEntries(Object.entries(row).flatMap(([k, v]) => (k.startsWith(prefix) ? [[k.slice(prefix.length), v]] : [])));

// A pet has at most one delivered order (delivered is final, and its pet is then sold).
const PAGE = `SELECT ${PET_COLUMN_NAMES.map((c) => `p.${c}`).join(', ')}, c.name AS kind_name, ${prefixed('o', ORDER_COLUMNS, 'o_')}, ${prefixed('cu', CUSTOMER_COLUMNS, 'cu_')}
  FROM pets p JOIN categories c ON c.id = p.category_id
  LEFT JOIN orders o ON o.pet_id = p.id AND o.status = 'delivered'
  LEFT JOIN customers cu ON cu.id = o.customer_id
  WHERE p.id > $1 AND (
    (p.acquired_at >= $5 AND p.acquired_at < $6)
    OR (p.acquired_at IS NULL AND p.created_at >= $2 AND p.created_at < $3)
    OR (o.updated_at >= $2 AND o.updated_at < $3))
  ORDER BY p.id LIMIT $4`;

const day = (at: Date) => at.toISOString().slice(0, 10);

export class SqlDealerBook implements DealerBookRepository {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async page(q: DealerBookQuery): Promise<DealerBookEntry[]> {
    const rows = await this.#db.all<Record<string, unknown>>(PAGE, [q.afterId, q.from.toISOString(), q.to.toISOString(), q.limit, day(q.from), day(q.to)]);
    return rows.map((row) => {
      const order = row.o_id === null ? undefined : toOrder(unprefixed(row, 'o_') as unknown as OrderRow);
      const buyer = row.cu_id === null ? undefined : toCustomerRecord(unprefixed(row, 'cu_') as unknown as CustomerRow);
      return { pet: toPet(row), kind: String(row.kind_name), ...(order && { sale: order }), ...(buyer && { buyer }) };
    });
  }
}
