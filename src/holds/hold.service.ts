import { changesOf } from '../activity/activity.changes.ts';
import type { Clock } from '../clock.ts';
import { AppError, assertFound, invalid } from '../errors.ts';
import { withoutEvents, write } from '../events/event.outbox.ts';
import type { NewEvent, WriteContext } from '../events/event.store.ts';
import { periodic, type Job } from '../jobs.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { Pet, PetStatus } from '../pets/pet.schemas.ts';
import { savePet } from '../pets/pet.service.ts';
import type { Storage, Transaction } from '../storage/storage.ts';
import type { Order } from '../store/order.schemas.ts';
import { unknownCustomer } from '../store/order.service.ts';
import { HOLD_MAX_DAYS, type Hold, type ListHoldsQuery, type NewHold } from './hold.schemas.ts';
import { holdNotLive, petOnHold } from './hold.rules.ts';

// The holds' workflows (docs/api.md, "Holds"). A live hold keeps its animal `pending` for one
// customer until `until`; it ends once: cancelled, converted into that customer's order, or expired
// by the expiry job. Locks: placing takes pet → customer (as placing an order does); cancelling,
// converting and expiring take hold → pet (→ customer), and placing never locks a hold, so no two
// workflows wait on each other in a circle. Concurrent holds on one animal queue on the pet's lock
// and find it held; the unique index of live holds refuses a second one whatever happens.

const DAY_MS = 24 * 60 * 60 * 1000;

/** `until` must lie ahead, at most HOLD_MAX_DAYS. */
export function assertUntil(until: Date, now: Date): void {
  if (until <= now)
    throw invalid(`body field "until" must be later than now (${now.toISOString()})`, {
      in: 'body',
      field: 'until',
      rule: 'formatMinimum',
      message: 'a hold ends in the future',
    });
  if (until.getTime() > now.getTime() + HOLD_MAX_DAYS * DAY_MS)
    throw invalid(`body field "until" must be at most ${HOLD_MAX_DAYS} days ahead`, {
      in: 'body',
      field: 'until',
      rule: 'formatMaximum',
      message: `a hold lasts at most ${HOLD_MAX_DAYS} days`,
    });
}

/** Gives a pet the status `status`; its pet.updated when that changed it (a withdrawn pet is left alone). */
async function movePet(tx: Transaction, pet: Pet | undefined, status: PetStatus, now: Date): Promise<NewEvent[]> {
  if (pet === undefined || pet.status === status) return [];
  const saved = await savePet(tx, pet, { ...pet, status }, now);
  return [{ type: 'pet.updated', data: saved, changes: changesOf(pet, saved) }];
}

/** Puts an available animal on hold for a live customer; it becomes pending. Records hold.placed and pet.updated. */
export function placeHold(storage: Storage, petId: number, input: NewHold, currency: string, ctx: WriteContext<Hold>): Promise<Hold> {
  const until = new Date(input.until);
  assertUntil(until, ctx.now);
  return write(storage, ctx, async (tx) => {
    const pet = await tx.pets.lock(petId);
    assertFound(`pet ${petId}`, pet);
    const live = await tx.holds.liveFor(petId);
    if (live !== undefined) throw petOnHold(petId, live);
    if (pet.status !== 'available') throw new AppError('pet_not_available', `pet ${petId} is ${pet.status}, not available`);
    if ((await tx.customers.lock(input.customerId)) === undefined) throw unknownCustomer(input.customerId);
    const deposit = input.deposit && { amount: input.deposit.amount, currency };
    const hold = await tx.holds.insert({ petId, customerId: input.customerId, method: input.method ?? 'sale', until, deposit }, ctx.now);
    if (hold === undefined) throw petOnHold(petId, { id: 0, until: 'its end' });
    return { result: hold, events: [{ type: 'hold.placed', data: hold }, ...(await movePet(tx, pet, 'pending', ctx.now))] };
  });
}

/** The live hold `id`, locked; 404 when there is none, 409 when it ended (or its `until` passed: the job is about to expire it). */
async function lockLive(tx: Transaction, id: number, now: Date): Promise<Hold> {
  const hold = await tx.holds.lock(id);
  assertFound(`hold ${id}`, hold);
  if (hold.state !== 'live') throw holdNotLive(hold);
  if (Date.parse(hold.until) <= now.getTime()) throw holdNotLive(hold, `it expired at ${hold.until}`);
  return hold;
}

/** Cancels a live hold, saying whether its deposit was paid back; the animal is available again. Records hold.cancelled and pet.updated. */
export function cancelHold(storage: Storage, id: number, depositRefunded: boolean, ctx: WriteContext<Hold>): Promise<Hold> {
  return write(storage, ctx, async (tx) => {
    const hold = await lockLive(tx, id, ctx.now);
    if (depositRefunded && hold.deposit === undefined)
      throw invalid(`body field "depositRefunded" must be false: hold ${id} has no deposit`, {
        in: 'body',
        field: 'depositRefunded',
        rule: 'const',
        message: 'this hold has no deposit to pay back',
      });
    const moved = await movePet(tx, await tx.pets.lock(hold.petId), 'available', ctx.now);
    const ended = await tx.holds.end(id, 'cancelled', ctx.now, hold.deposit === undefined ? {} : { depositRefunded });
    return { result: ended, events: [{ type: 'hold.cancelled', data: ended }, ...moved] };
  });
}

/**
 * Converts a live hold into the order of its customer: placed, for its animal (which stays
 * `pending`), with the animal's price and the hold's deposit and method. Records hold.converted and
 * order.placed; answers the order.
 */
export function convertHold(storage: Storage, id: number, ctx: WriteContext<Order>): Promise<Order> {
  return write(storage, ctx, async (tx) => {
    const hold = await lockLive(tx, id, ctx.now);
    const pet = await tx.pets.lock(hold.petId);
    // A customer with a live hold cannot be withdrawn or erased, nor an animal on hold withdrawn: both stand.
    if ((await tx.customers.lock(hold.customerId)) === undefined) throw unknownCustomer(hold.customerId);
    const order = await tx.orders.insert(
      { petId: hold.petId, customerId: hold.customerId, method: hold.method, price: pet?.price ?? null, deposit: hold.deposit },
      'placed',
      ctx.now,
    );
    const ended = await tx.holds.end(id, 'converted', ctx.now, { orderId: order.id });
    return {
      result: order,
      events: [{ type: 'hold.converted', data: ended }, { type: 'order.placed', data: order }, ...(await movePet(tx, pet, 'pending', ctx.now))],
    };
  });
}

/** How many due holds one pass of the expiry job takes at a time. */
const EXPIRY_BATCH = 100;

/**
 * Expires the live holds whose `until` is at or before `now`: each in its own write, which locks
 * the hold and checks it is still live and due before ending it, so that instances running the job
 * at once expire each exactly once (the second finds it ended). The animal is available again.
 * Records hold.expired and pet.updated. Returns how many holds this call expired.
 */
export async function expireHolds(storage: Storage, now: Date): Promise<number> {
  let expired = 0;
  for (;;) {
    const due = await storage.holds.due(now, EXPIRY_BATCH);
    for (const { id } of due) {
      const ended = await write(storage, { now }, async (tx) => {
        const hold = await tx.holds.lock(id);
        if (hold === undefined || hold.state !== 'live' || Date.parse(hold.until) > now.getTime()) return withoutEvents(false);
        const moved = await movePet(tx, await tx.pets.lock(hold.petId), 'available', now);
        const done = await tx.holds.end(id, 'expired', now, {});
        return { result: true, events: [{ type: 'hold.expired', data: done }, ...moved] };
      });
      if (ended) expired++;
    }
    if (due.length < EXPIRY_BATCH) return expired;
  }
}

/** How often the expiry job looks for due holds: a hold ends at most this long after its `until`. */
export const HOLD_EXPIRY_EVERY_MS = 30_000;

/** The expiry job: every instance runs it; each due hold is expired once (expireHolds). */
export function holdExpiryJob(storage: Storage, clock: Clock, onError: (err: unknown) => void): Job {
  return periodic(HOLD_EXPIRY_EVERY_MS, () => expireHolds(storage, clock.now()), onError);
}

export class HoldService {
  readonly #storage: Storage;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;
  readonly #currency: string;

  constructor(storage: Storage, cursors: CursorCodec, clock: Clock, currency: string) {
    this.#storage = storage;
    this.#cursors = cursors;
    this.#clock = clock;
    this.#currency = currency;
  }

  place(petId: number, input: NewHold): Promise<Hold> {
    return placeHold(this.#storage, petId, input, this.#currency, { now: this.#clock.now() });
  }

  cancel(id: number, depositRefunded: boolean): Promise<Hold> {
    return cancelHold(this.#storage, id, depositRefunded, { now: this.#clock.now() });
  }

  convert(id: number): Promise<Order> {
    return convertHold(this.#storage, id, { now: this.#clock.now() });
  }

  list(q: ListHoldsQuery): Promise<Page<Hold>> {
    const scope = `holds;${q.customerId ?? ''};${q.petId ?? ''};${q.state ?? ''}`;
    return this.#cursors.fetchPage(scope, q, (limit, afterId = 0) =>
      this.#storage.holds.list({ limit, afterId, customerId: q.customerId, petId: q.petId, state: q.state }),
    );
  }
}
