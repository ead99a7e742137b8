import type { Clock } from '../clock.ts';
import { AppError, assertFound } from '../errors.ts';
import { withoutEvents, write } from '../events/event.outbox.ts';
import type { CursorCodec, Page } from '../paging.ts';
import { assertIfMatch, type Condition } from '../preconditions.ts';
import type { ConditionalWrite, IdempotentResponse, PetCreate, Storage, WriteContext } from '../storage/storage.ts';
import { OPEN_ORDER_STATUSES } from '../store/order.lifecycle.ts';
import type { ListPetsQuery, NewPet, Pet, PetPatch } from './pet.schemas.ts';

// The pet workflows, each in one write transaction over the pet row it locks (docs/architecture.md).
// Locks go pet → category → the inventory row (kept by the engines' triggers), and an order's
// workflows take order → pet: no two writes wait on each other in a circle.

/** Adds a pet to a live category; records pet.created. */
export function createPet(storage: Storage, input: PetCreate, ctx: WriteContext<Pet>): Promise<Pet> {
  return write(storage, ctx, async (tx) => {
    const pet = await tx.pets.insert(input);
    if (pet === undefined) throw unknownCategory(input.categoryId);
    return { result: pet, events: [{ type: 'pet.created', data: pet }] };
  });
}

/**
 * Applies `patch`; records pet.updated when the pet really changed (an unchanged pet is not
 * written). A new category must be live; the status cannot change while an order for the pet is
 * open. Concurrent changes of one pet queue on its row lock, each checking If-Match and these
 * rules against what the one before it committed.
 */
export function updatePet(storage: Storage, id: number, patch: PetPatch, ctx: ConditionalWrite<Pet>): Promise<Pet> {
  return write(storage, ctx, async (tx) => {
    const current = await tx.pets.lock(id);
    assertFound(`pet ${id}`, current);
    assertIfMatch(`pet ${id}`, ctx.ifMatch, current);
    const { next, changed } = patchPet(current, patch);
    if (!changed) return withoutEvents(current);
    if (next.categoryId !== current.categoryId && !(await tx.categories.keepLive(next.categoryId))) throw unknownCategory(next.categoryId);
    if (next.status !== current.status && (await tx.orders.exists(id, OPEN_ORDER_STATUSES))) throw petHasOpenOrder(id, 'status');
    const pet = await tx.pets.update(next);
    return { result: pet, events: [{ type: 'pet.updated', data: pet }] };
  });
}

/**
 * Withdraws the pet (it keeps its row; no read returns it again); records pet.deleted with {id}.
 * Refused while an order for it is open. Against placeOrder, which locks the pet too: either the
 * order committed first and is seen open here, or the withdrawal did and the order finds no pet.
 */
export function withdrawPet(storage: Storage, id: number, ctx: ConditionalWrite<void>): Promise<void> {
  return write(storage, ctx, async (tx) => {
    const current = await tx.pets.lock(id);
    assertFound(`pet ${id}`, current);
    assertIfMatch(`pet ${id}`, ctx.ifMatch, current);
    if (await tx.orders.exists(id, OPEN_ORDER_STATUSES)) throw petHasOpenOrder(id, 'withdraw');
    await tx.pets.withdraw(id, ctx.now);
    return { result: undefined, events: [{ type: 'pet.deleted', data: { id } }] };
  });
}

/** The pet after `patch`; `changed` is false when every field given already had its value. */
export function patchPet(current: Pet, patch: PetPatch): { next: Pet; changed: boolean } {
  const next: Pet = {
    id: current.id,
    name: patch.name ?? current.name,
    categoryId: patch.categoryId ?? current.categoryId,
    status: patch.status ?? current.status,
  };
  const changed = next.name !== current.name || next.categoryId !== current.categoryId || next.status !== current.status;
  return { next, changed };
}

export function unknownCategory(categoryId: number): AppError {
  return new AppError('unknown_category', `body/categoryId ${categoryId} is not a known category (see GET /v1/categories)`);
}

const OPEN_STATUSES = OPEN_ORDER_STATUSES.join(' or ');

/** While an order for the pet is open (placed or approved) the pet's status is the order's. */
export function petHasOpenOrder(petId: number, change: 'status' | 'withdraw'): AppError {
  const what = change === 'status' ? 'its status cannot be changed' : 'it cannot be withdrawn';
  return new AppError('pet_has_open_order', `pet ${petId} has an open order (${OPEN_STATUSES}), so ${what}; cancel or deliver the order first`);
}

export class PetService {
  readonly #storage: Storage;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;

  constructor(storage: Storage, cursors: CursorCodec, clock: Clock) {
    this.#storage = storage;
    this.#cursors = cursors;
    this.#clock = clock;
  }

  create(input: NewPet, idempotency?: IdempotentResponse<Pet>): Promise<Pet> {
    const pet = { name: input.name, categoryId: input.categoryId, status: input.status ?? 'available' } as const;
    return createPet(this.#storage, pet, { now: this.#clock.now(), idempotency });
  }

  get(id: number): Promise<Pet | undefined> {
    return this.#storage.pets.get(id);
  }

  list(q: ListPetsQuery): Promise<Page<Pet>> {
    // The filters are bound into the cursor. Without categoryId the scope is the one cursors had
    // before that filter existed, so cursors issued then keep working.
    const scope = `pets;${q.status ?? ''}${q.categoryId === undefined ? '' : `;${q.categoryId}`}`;
    return this.#cursors.fetchPage(scope, q, (limit, afterId = 0) => this.#storage.pets.list({ limit, afterId, status: q.status, categoryId: q.categoryId }));
  }

  update(id: number, patch: PetPatch, ifMatch: Condition | undefined): Promise<Pet> {
    return updatePet(this.#storage, id, patch, { now: this.#clock.now(), ifMatch });
  }

  withdraw(id: number, ifMatch: Condition | undefined): Promise<void> {
    return withdrawPet(this.#storage, id, { now: this.#clock.now(), ifMatch });
  }
}
