import { changesOf } from '../activity/activity.changes.ts';
import type { Clock } from '../clock.ts';
import { AppError, assertFound, invalid } from '../errors.ts';
import { write } from '../events/event.outbox.ts';
import { csvChunks, csvFilename, csvHeaders, csvLine, csvRecord, EXPORT_PAGE_SIZE, type CsvExport } from '../csv.ts';
import { type CursorCodec, everyPage, type Page } from '../paging.ts';
import { type Pet, Price } from '../pets/pet.schemas.ts';
import { savePet } from '../pets/pet.service.ts';
import { assertRecordComplete } from '../pets/pet.record.ts';
import { assertIfMatch, type Condition } from '../preconditions.ts';
import type { ConditionalWrite, NewEvent, WriteContext } from '../events/event.store.ts';
import type { IdempotentResponse } from '../events/idempotency.store.ts';
import type { Storage, Transaction } from '../storage/storage.ts';
import { assertPetOrderable, assertTransition, petStatusFor } from './order.lifecycle.ts';
import { type ExportOrdersQuery, type ListOrdersQuery, type NewOrder, Order, type OrderStatus } from './order.schemas.ts';

/** The columns of the orders' CSV: the Order's members, a price by its amount and currency. */
export const ORDER_CSV_HEADERS = csvHeaders(Order, [Price]);

/**
 * The form of NewOrder without `customerId` (every order before customers existed): deprecated when
 * customers came, refused from its sunset on (docs/api.md, "Orders name their customer").
 */
export const ORDER_WITHOUT_CUSTOMER = Object.freeze({
  deprecatedAt: new Date('2026-12-01T00:00:00Z'),
  sunset: new Date('2027-06-01T00:00:00Z'),
});

/** An order names its customer; until the sunset of the form without one, it may not (and is told so by the route's headers). */
export function assertCustomerNamed(input: NewOrder, now: Date): void {
  if (input.customerId !== undefined || now < ORDER_WITHOUT_CUSTOMER.sunset) return;
  throw invalid(`body field "customerId" is required: orders without a customer were refused from ${ORDER_WITHOUT_CUSTOMER.sunset.toISOString()}`, {
    in: 'body',
    field: 'customerId',
    rule: 'required',
    message: 'name the customer the animal goes to',
  });
}

/** The customer an order names must be live (not withdrawn, not erased). */
export function unknownCustomer(customerId: number): AppError {
  return new AppError('unknown_customer', `body/customerId ${customerId} is not a known customer (it does not exist, or was withdrawn or erased)`);
}

/**
 * Places an order for a customer and marks the pet `pending`, atomically; records order.placed and
 * pet.updated. Concurrent orders for one pet, from any instance, queue on the pet's row lock; each
 * then reads the status the one before it committed, so exactly one of them is placed. The
 * customer's row is locked after the pet's, so that withdrawing or erasing it (which look for its
 * open orders) waits for the order or the order finds it gone.
 */
export function placeOrder(storage: Storage, input: NewOrder, ctx: WriteContext<Order>): Promise<Order> {
  assertCustomerNamed(input, ctx.now);
  const { petId, customerId, method = 'sale' } = input;
  return write(storage, ctx, async (tx) => {
    // A withdrawn pet is not found: unknown_pet, like one that never existed.
    const pet = await tx.pets.lock(petId);
    assertPetOrderable(petId, pet?.status);
    if (customerId !== undefined && (await tx.customers.lock(customerId)) === undefined) throw unknownCustomer(customerId);
    const moved = await movePet(tx, pet!, 'placed', ctx.now);
    // The order keeps the price the pet had when it was placed, whatever the pet's price becomes.
    const order = await tx.orders.insert({ petId, customerId, method, price: pet!.price ?? null }, 'placed', ctx.now);
    return { result: order, events: [{ type: 'order.placed', data: order }, ...moved] };
  });
}

/**
 * Moves an order to `to` and its pet to the status that follows, atomically, when the lifecycle
 * allows it; records order.<status> and, when the pet's status changes, pet.updated. Concurrent
 * transitions of one order queue on its row lock, the second checking against what the first
 * committed. Locks go order → pet (placeOrder takes the pet only), so the two cannot deadlock.
 */
export function transitionOrder(storage: Storage, id: number, to: OrderStatus, ctx: ConditionalWrite<Order>, enforceRecord = false): Promise<Order> {
  return write(storage, ctx, async (tx) => {
    const current = await tx.orders.lock(id);
    assertFound(`order ${id}`, current);
    assertIfMatch(`order ${id}`, ctx.ifMatch, current);
    assertTransition(id, current, to);
    const pet = await tx.pets.lock(current.petId);
    // RECORD_ENFORCE_ON_SALE: an animal leaves the store with its legal record complete.
    if (enforceRecord && to === 'delivered' && pet !== undefined) assertRecordComplete(pet);
    const moved = await movePet(tx, pet, to, ctx.now);
    const order = await tx.orders.setStatus(id, to, ctx.now);
    return { result: order, events: [{ type: `order.${to}`, data: order }, ...moved] };
  });
}

/**
 * Gives the pet the status its order's new state means; its pet.updated when that changed it. (An
 * order that can still move is open, so its pet cannot have been withdrawn.)
 */
async function movePet(tx: Transaction, pet: Pet | undefined, order: OrderStatus, now: Date): Promise<NewEvent[]> {
  const status = petStatusFor(order);
  if (pet === undefined || pet.status === status) return [];
  const saved = await savePet(tx, pet, { ...pet, status }, now);
  return [{ type: 'pet.updated', data: saved, changes: changesOf(pet, saved) }];
}

export class OrderService {
  readonly #storage: Storage;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;

  readonly #enforceRecord: boolean;

  /** `enforceRecord` (RECORD_ENFORCE_ON_SALE): an order is delivered only for an animal whose record is complete. */
  constructor(storage: Storage, cursors: CursorCodec, clock: Clock, enforceRecord = false) {
    this.#storage = storage;
    this.#cursors = cursors;
    this.#clock = clock;
    this.#enforceRecord = enforceRecord;
  }

  place(input: NewOrder, idempotency?: IdempotentResponse<Order>): Promise<Order> {
    return placeOrder(this.#storage, input, { now: this.#clock.now(), idempotency });
  }

  get(id: number): Promise<Order | undefined> {
    return this.#storage.orders.get(id);
  }

  update(id: number, status: OrderStatus, ifMatch: Condition | undefined): Promise<Order> {
    return transitionOrder(this.#storage, id, status, { now: this.#clock.now(), ifMatch }, this.#enforceRecord);
  }

  list(q: ListOrdersQuery): Promise<Page<Order>> {
    const scope = `orders;${q.status ?? ''};${q.petId ?? ''}`;
    return this.#cursors.fetchPage(scope, q, (limit, afterId = 0) => this.#storage.orders.list({ limit, afterId, status: q.status, petId: q.petId }));
  }

  /** Every order the listing `q` shows, as CSV: the listing's own pages, `pageSize` orders each, read as the reader takes them. */
  async exportCsv(q: ExportOrdersQuery, pageSize = EXPORT_PAGE_SIZE): Promise<CsvExport> {
    const filename = csvFilename('orders', this.#clock.now());
    const pages = await everyPage((cursor) => this.list({ ...q, limit: pageSize, cursor }));
    return { filename, chunks: csvChunks(csvLine(ORDER_CSV_HEADERS), pages, (order) => csvRecord(order, ORDER_CSV_HEADERS)) };
  }
}
