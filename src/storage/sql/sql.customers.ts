// Customers: the reads, and a customer inside a workflow's transaction. The search is a scan of the
// live customers' folded text (customers/customer.search.ts): a shop's customers are thousands.
import type { Customer, CustomerRecord } from '../../customers/customer.schemas.ts';
import type { CustomerQuery, CustomerRepository, CustomerTx, CustomerWrite } from '../../customers/customer.store.ts';
import { CUSTOMER_COLUMNS, customerColumns, toCustomer, toCustomerRecord, type CustomerRow } from '../rows.ts';
import { first, perDialect, type Dialect, type SqlDb } from './sql.db.ts';

const LIVE = 'deleted_at IS NULL';
const GET = `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE id = $1`;
const GET_LIVE = `${GET} AND ${LIVE}`;
const LIST = `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE id > $1 AND ${LIVE} ORDER BY id LIMIT $2`;
const SEARCH = `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE id > $1 AND ${LIVE} AND search_text LIKE $3 ESCAPE '\\' ORDER BY id LIMIT $2`;
const LOCK_LIVE = perDialect((d) => `${GET_LIVE} ${d.lock('FOR UPDATE')}`);
const LOCK_ANY = perDialect((d) => `${GET} ${d.lock('FOR UPDATE')}`);
const MEMBERS = 'name, email, phone, address_line1, address_line2, city, postal_code, region, country, notes';
const INSERT = `INSERT INTO customers (${MEMBERS}, search_text, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12) RETURNING ${CUSTOMER_COLUMNS}`;
const UPDATE = `UPDATE customers SET name = $2, email = $3, phone = $4, address_line1 = $5, address_line2 = $6, city = $7,
  postal_code = $8, region = $9, country = $10, notes = $11, search_text = $12, updated_at = $13 WHERE id = $1 RETURNING ${CUSTOMER_COLUMNS}`;
const WITHDRAW = 'UPDATE customers SET deleted_at = $2, updated_at = $2 WHERE id = $1';
// An erasure clears every member but, when $4 is 1, the name and the address, kept until $3.
const ERASE = `UPDATE customers SET email = NULL, phone = NULL, notes = NULL, search_text = NULL,
  name = CASE WHEN $4 = 1 THEN name END,
  address_line1 = CASE WHEN $4 = 1 THEN address_line1 END,
  address_line2 = CASE WHEN $4 = 1 THEN address_line2 END,
  city = CASE WHEN $4 = 1 THEN city END,
  postal_code = CASE WHEN $4 = 1 THEN postal_code END,
  region = CASE WHEN $4 = 1 THEN region END,
  country = CASE WHEN $4 = 1 THEN country END,
  retained_until = $3, erased_at = COALESCE(erased_at, $2), deleted_at = COALESCE(deleted_at, $2), updated_at = $2
  WHERE id = $1 RETURNING ${CUSTOMER_COLUMNS}`;
// From customers_retained: the erasures whose period ended.
const RETENTION_ENDED = 'SELECT 1 AS ended FROM customers WHERE retained_until IS NOT NULL AND retained_until <= $1 LIMIT 1';
const END_RETENTION = `UPDATE customers SET name = NULL, address_line1 = NULL, address_line2 = NULL, city = NULL, postal_code = NULL,
  region = NULL, country = NULL, retained_until = NULL WHERE retained_until IS NOT NULL AND retained_until <= $1`;

/** A LIKE pattern that finds `needle` anywhere, its own `%`, `_` and `\\` taken literally (ESCAPE '\\'). */
export function containsPattern(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const live = (row: CustomerRow | undefined): Customer | undefined => row && toCustomer(row);
const record = (row: CustomerRow | undefined): CustomerRecord | undefined => row && toCustomerRecord(row);

export class SqlCustomers implements CustomerRepository {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async get(id: number): Promise<Customer | undefined> {
    return live(await first<CustomerRow>(this.#db, GET_LIVE, [id]));
  }

  async list(q: CustomerQuery): Promise<Customer[]> {
    const rows =
      q.needle === undefined
        ? this.#db.all<CustomerRow>(LIST, [q.afterId, q.limit])
        : this.#db.all<CustomerRow>(SEARCH, [q.afterId, q.limit, containsPattern(q.needle)]);
    return (await rows).map(toCustomer);
  }

  async record(id: number): Promise<CustomerRecord | undefined> {
    return record(await first<CustomerRow>(this.#db, GET, [id]));
  }

  async retentionEnded(now: Date): Promise<boolean> {
    return (await first(this.#db, RETENTION_ENDED, [now.toISOString()])) !== undefined;
  }
}

export class SqlCustomerTx implements CustomerTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async insert(input: CustomerWrite, at: Date): Promise<Customer> {
    const params = [...customerColumns(input.customer), input.searchText, at.toISOString()];
    return toCustomer((await first<CustomerRow>(this.#db, INSERT, params))!);
  }

  async lock(id: number): Promise<Customer | undefined> {
    return live(await first<CustomerRow>(this.#db, LOCK_LIVE(this.#d), [id]));
  }

  async lockRecord(id: number): Promise<CustomerRecord | undefined> {
    return record(await first<CustomerRow>(this.#db, LOCK_ANY(this.#d), [id]));
  }

  async update(id: number, input: CustomerWrite, at: Date): Promise<Customer> {
    const params = [id, ...customerColumns(input.customer), input.searchText, at.toISOString()];
    return toCustomer((await first<CustomerRow>(this.#db, UPDATE, params))!);
  }

  async withdraw(id: number, at: Date): Promise<void> {
    await this.#db.run(WITHDRAW, [id, at.toISOString()]);
  }

  async erase(id: number, at: Date, keepUntil: Date | undefined): Promise<CustomerRecord> {
    return toCustomerRecord(
      (await first<CustomerRow>(this.#db, ERASE, [id, at.toISOString(), keepUntil?.toISOString() ?? null, keepUntil === undefined ? 0 : 1]))!,
    );
  }

  async endRetention(now: Date): Promise<number> {
    return this.#db.run(END_RETENTION, [now.toISOString()]);
  }
}
