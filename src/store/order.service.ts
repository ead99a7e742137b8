import type { Clock } from '../clock.ts';
import { assertFound } from '../errors.ts';
import { write } from '../events/event.outbox.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { Pet } from '../pets/pet.schemas.ts';
import { savePet } from '../pets/pet.service.ts';
import { assertRecordComplete } from '../pets/pet.record.ts';
import { assertIfMatch, type Condition } from '../preconditions.ts';
import type { ConditionalWrite, NewEvent, WriteContext } from '../events/event.store.ts';
import type { IdempotentResponse } from '../events/idempotency.store.ts';
import type { Storage, Transaction } from '../storage/storage.ts';
import { assertPetOrderable, assertTransition, petStatusFor } from './order.lifecycle.ts';
import type { ListOrdersQuery, Order, OrderStatus } from './order.schemas.ts';

/**
 * Places an order and marks the pet `pending`, atomically; records order.placed and pet.updated.
 * Concurrent orders for one pet, from any instance, queue on the pet's row lock; each then reads
 * the status the one before it committed, so exactly one of them is placed.
 */
export function placeOrder(storage: Storage, petId: number, ctx: WriteContext<Order>): Promise<Order> {
  return write(storage, ctx, async (tx) => {
    // A withdrawn pet is not found: unknown_pet, like one that never existed.
    const pet = await tx.pets.lock(petId);
    assertPetOrderable(petId, pet?.status);
    const moved = await movePet(tx, pet!, 'placed', ctx.now);
    // The order keeps the price the pet had when it was placed, whatever the pet's price becomes.
    const order = await tx.orders.insert(petId, 'placed', pet!.price ?? null, ctx.now);
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
  return [{ type: 'pet.updated', data: await savePet(tx, pet, { ...pet, status }, now) }];
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

  place(petId: number, idempotency?: IdempotentResponse<Order>): Promise<Order> {
    return placeOrder(this.#storage, petId, { now: this.#clock.now(), idempotency });
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
}
