import { changesOf } from '../activity/activity.changes.ts';
import type { Clock } from '../clock.ts';
import { AppError, assertFound, notFound } from '../errors.ts';
import { withoutEvents, write } from '../events/event.outbox.ts';
import type { ConditionalWrite, WriteContext } from '../events/event.store.ts';
import { periodic, type Job } from '../jobs.ts';
import { canonicalJson } from '../json.ts';
import { csvChunks, csvFilename, csvHeaders, csvLine, csvRecord, EXPORT_PAGE_SIZE, type CsvExport } from '../csv.ts';
import { type CursorCodec, everyPage, type Page } from '../paging.ts';
import { assertIfMatch, type Condition } from '../preconditions.ts';
import type { Storage, Transaction } from '../storage/storage.ts';
import { OPEN_ORDER_STATUSES } from '../store/order.lifecycle.ts';
import type { Order } from '../store/order.schemas.ts';
import {
  KEPT_FOR_SALES,
  Address,
  Customer,
  type CustomerErasure,
  type CustomerPatch,
  type CustomerExport,
  type ExportCustomersQuery,
  type ListCustomersQuery,
  type NewCustomer,
} from './customer.schemas.ts';
import { customerNeedle, customerSearchText } from './customer.search.ts';
import type { CustomerWrite } from './customer.store.ts';

/** The columns of the customers' CSV: the Customer's members, the address by its lines. */
export const CUSTOMER_CSV_HEADERS = csvHeaders(Customer, [Address]);

// The customers' workflows (docs/api.md, "Customers"). A customer's events carry its id only: the
// personal data stays behind `customers:read`, and an erasure has no copy in the feed or in webhook
// deliveries to chase. Locks: an order's workflow takes pet → customer; these take the customer only.

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the engines write for `customer`: its members and its search text. */
const written = (customer: CustomerWrite['customer']): CustomerWrite => ({ customer, searchText: customerSearchText(customer) });

/** Adds a customer; records customer.created. */
export function createCustomer(storage: Storage, input: NewCustomer, ctx: WriteContext<Customer>): Promise<Customer> {
  return write(storage, ctx, async (tx) => {
    const customer = await tx.customers.insert(written(input), ctx.now);
    return { result: customer, events: [{ type: 'customer.created', data: { id: customer.id } }] };
  });
}

/** A member a merge patch names: `null` removes it, absent keeps it. */
const merged = <T>(patched: T | null | undefined, kept: T | undefined): T | undefined => (patched === undefined ? kept : (patched ?? undefined));

/** Leaves out the members whose value is undefined, so that an absent member is absent (as the API shows it). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The customer after `patch` (RFC 7396: the address merged member by member too); `changed` is false when nothing differs. */
export function patchCustomer(current: Customer, patch: CustomerPatch): { next: Customer; changed: boolean } {
  const a = patch.address ?? {};
  const was = current.address;
  const address: Address = defined({
    line1: a.line1 ?? was.line1,
    line2: merged(a.line2, was.line2),
    city: a.city ?? was.city,
    postalCode: a.postalCode ?? was.postalCode,
    region: merged(a.region, was.region),
    country: a.country ?? was.country,
  });
  const next: Customer = defined({
    id: current.id,
    name: patch.name ?? current.name,
    email: merged(patch.email, current.email),
    phone: merged(patch.phone, current.phone),
    address,
    notes: merged(patch.notes, current.notes),
    createdAt: current.createdAt,
    updatedAt: current.updatedAt,
  });
  return { next, changed: canonicalJson(next) !== canonicalJson(current) };
}

/** Applies a merge patch; records customer.updated when the customer really changed. */
export function updateCustomer(storage: Storage, id: number, patch: CustomerPatch, ctx: ConditionalWrite<Customer>): Promise<Customer> {
  return write(storage, ctx, async (tx) => {
    const current = await tx.customers.lock(id);
    assertFound(`customer ${id}`, current);
    assertIfMatch(`customer ${id}`, ctx.ifMatch, current);
    const { next, changed } = patchCustomer(current, patch);
    if (!changed) return withoutEvents(current);
    const customer = await tx.customers.update(id, written(next), ctx.now);
    return { result: customer, events: [{ type: 'customer.updated', data: { id }, changes: changesOf(current, customer) }] };
  });
}

/** A customer with an open sale (an order placed or approved, or a live hold) cannot be withdrawn or erased until it is closed. */
async function assertNoOpenSale(tx: Transaction, id: number, orders: readonly Order[]): Promise<void> {
  const open = orders.find((o) => OPEN_ORDER_STATUSES.includes(o.status));
  if (open !== undefined) throw customerHasOpenSale(id, `order ${open.id} is ${open.status}`);
  if (await tx.holds.customerHasLive(id)) throw customerHasOpenSale(id, 'an animal is on hold for them');
}

/** 409: the customer's sale is still open (`what`: the order or the hold). */
export function customerHasOpenSale(id: number, what: string): AppError {
  return new AppError(
    'customer_has_open_sale',
    `customer ${id} has an open sale (${what}); deliver or cancel the order, or cancel or convert the hold, first, then try again`,
  );
}

/** Withdraws a live customer: no longer read, listed or sold to; its data stays until erased. Records customer.deleted. */
export function withdrawCustomer(storage: Storage, id: number, ctx: ConditionalWrite<void>): Promise<void> {
  return write(storage, ctx, async (tx) => {
    const current = await tx.customers.lock(id);
    assertFound(`customer ${id}`, current);
    assertIfMatch(`customer ${id}`, ctx.ifMatch, current);
    await assertNoOpenSale(tx, id, await tx.orders.ofCustomer(id));
    await tx.customers.withdraw(id, ctx.now);
    return { result: undefined, events: [{ type: 'customer.deleted', data: { id } }] };
  });
}

/**
 * The last sale of the customer's delivered orders, and until when its record keeps the buyer's
 * name and address (`days` after it); undefined when the customer bought nothing or the period ended.
 */
export function saleRetention(orders: readonly Order[], days: number, now: Date): { order: Order; until: Date } | undefined {
  let last: Order | undefined;
  for (const o of orders) if (o.status === 'delivered' && (last === undefined || o.updatedAt > last.updatedAt)) last = o;
  if (last === undefined) return undefined;
  const until = new Date(Date.parse(last.updatedAt) + days * DAY_MS);
  return until > now ? { order: last, until } : undefined;
}

/**
 * Erases a customer's personal data (GDPR Art. 17), withdrawn or not: everything, except that the
 * name and the address stay while a sale record must keep them (`retentionDays` after the last
 * delivered order), and are erased by the retention job then. Refused while a sale is open. Records
 * customer.deleted when the customer was live. Erasing again answers what the first erasure kept.
 */
export function eraseCustomer(storage: Storage, id: number, retentionDays: number, ctx: WriteContext<CustomerErasure>): Promise<CustomerErasure> {
  return write(storage, ctx, async (tx) => {
    const current = await tx.customers.lockRecord(id);
    assertFound(`customer ${id}`, current);
    const orders = await tx.orders.ofCustomer(id);
    await assertNoOpenSale(tx, id, orders);
    const kept = saleRetention(orders, retentionDays, ctx.now);
    // A second erasure keeps no more than the first did: what it erased is gone.
    const keepUntil = kept !== undefined && (current.erasedAt === undefined || current.retainedUntil !== undefined) ? kept.until : undefined;
    const erased = await tx.customers.erase(id, ctx.now, keepUntil);
    const answer: CustomerErasure = {
      id,
      erasedAt: erased.erasedAt!,
      kept: keepUntil === undefined ? [] : [...KEPT_FOR_SALES],
      ...(keepUntil === undefined
        ? {}
        : {
            keptUntil: keepUntil.toISOString(),
            reason: `the sale record of order ${kept!.order.id} keeps the buyer's name and address for ${retentionDays} days after the sale (SALE_RECORD_RETENTION_DAYS)`,
          }),
    };
    return { result: answer, events: current.withdrawnAt === undefined ? [{ type: 'customer.deleted', data: { id } }] : [] };
  });
}

/** How often the retention job looks for kept names and addresses whose period ended. */
const RETENTION_EVERY_MS = 60 * 60 * 1000;

/**
 * Erases, at start-up and hourly after, the names and addresses erasures kept for sale records once
 * their period ends. Every instance runs it; the statement is the same whichever runs it first.
 */
export function saleRetentionJob(storage: Storage, clock: Clock, onError: (err: unknown) => void): Job {
  return periodic(RETENTION_EVERY_MS, () => endSaleRetention(storage, clock.now()), onError);
}

/** One run of the retention job: the kept names and addresses whose period ended at `now` are erased; returns how many customers. */
export async function endSaleRetention(storage: Storage, now: Date): Promise<number> {
  // Read first: a write (SQLite's one writer) only when some period has ended.
  if (!(await storage.customers.retentionEnded(now))) return 0;
  return storage.transaction((tx) => tx.customers.endRetention(now));
}

export class CustomerService {
  readonly #storage: Storage;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;
  readonly #retentionDays: number;

  constructor(storage: Storage, cursors: CursorCodec, clock: Clock, retentionDays: number) {
    this.#storage = storage;
    this.#cursors = cursors;
    this.#clock = clock;
    this.#retentionDays = retentionDays;
  }

  create(input: NewCustomer): Promise<Customer> {
    return createCustomer(this.#storage, input, { now: this.#clock.now() });
  }

  async get(id: number): Promise<Customer> {
    const customer = await this.#storage.customers.get(id);
    if (customer === undefined) throw notFound(`customer ${id}`);
    return customer;
  }

  list(q: ListCustomersQuery): Promise<Page<Customer>> {
    const needle = q.q === undefined ? undefined : customerNeedle(q.q);
    return this.#cursors.fetchPage(`customers;${needle ?? ''}`, q, (limit, afterId = 0) => this.#storage.customers.list({ limit, afterId, needle }));
  }

  /** Every customer the listing `q` shows, as CSV: the listing's own pages, `pageSize` customers each, read as the reader takes them. */
  async exportCsv(q: ExportCustomersQuery, pageSize = EXPORT_PAGE_SIZE): Promise<CsvExport> {
    const filename = csvFilename('customers', this.#clock.now());
    const pages = await everyPage((cursor) => this.list({ ...q, limit: pageSize, cursor }));
    return { filename, chunks: csvChunks(csvLine(CUSTOMER_CSV_HEADERS), pages, (customer) => csvRecord(customer, CUSTOMER_CSV_HEADERS)) };
  }

  update(id: number, patch: CustomerPatch, ifMatch: Condition | undefined): Promise<Customer> {
    return updateCustomer(this.#storage, id, patch, { now: this.#clock.now(), ifMatch });
  }

  withdraw(id: number, ifMatch: Condition | undefined): Promise<void> {
    return withdrawCustomer(this.#storage, id, { now: this.#clock.now(), ifMatch });
  }

  erase(id: number): Promise<CustomerErasure> {
    return eraseCustomer(this.#storage, id, this.#retentionDays, { now: this.#clock.now() });
  }

  async export(id: number): Promise<CustomerExport> {
    const exportedAt = this.#clock.now().toISOString();
    const customer = await this.#storage.customers.record(id);
    if (customer === undefined) throw notFound(`customer ${id}`);
    const [orders, holds] = await Promise.all([this.#storage.orders.ofCustomer(id), this.#storage.holds.ofCustomer(id)]);
    return { exportedAt, customer, orders, holds };
  }
}
