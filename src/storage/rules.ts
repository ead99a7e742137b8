// Domain checks and their client-facing messages, shared by every engine so that SQLite and
// PostgreSQL refuse the same requests with the same words. Engines call these inside their
// transactions, after reading the rows they have locked.
import { AppError, notFound } from '../errors.ts';
import { eventId } from '../events/event.schemas.ts';
import type { Pet, PetStatus } from '../pets/pet.schemas.ts';
import { entityTag, ifMatchPasses, type Condition } from '../preconditions.ts';
import { allowedFrom, canTransition, OPEN_ORDER_STATUSES } from '../store/order.lifecycle.ts';
import type { OrderStatus } from '../store/order.schemas.ts';
import type { PetPatch } from './storage.ts';

// What each order state means for the pet it names: the link between the two lifecycles.
const PET_STATUS_FOR: Readonly<Record<OrderStatus, PetStatus>> = {
  placed: 'pending',
  approved: 'pending',
  delivered: 'sold',
  cancelled: 'available',
};

export function petStatusFor(order: OrderStatus): PetStatus {
  return PET_STATUS_FOR[order];
}

/** A pet can be ordered only while it exists and is available. */
export function assertPetOrderable(petId: number, status: PetStatus | undefined): void {
  if (status === undefined) throw new AppError('unknown_pet', `body/petId ${petId} is not a known pet`);
  if (status !== 'available') throw new AppError('pet_not_available', `pet ${petId} is ${status}, not available`);
}

/** The lifecycle must allow moving order `id` from its current status to `to`. */
export function assertTransition(id: number, order: { readonly status: OrderStatus }, to: OrderStatus): void {
  const from = order.status;
  if (canTransition(from, to)) return;
  const allowed = allowedFrom(from);
  const why = allowed.length ? `allowed: ${allowed.join(', ')}` : `${from} is final`;
  throw new AppError('invalid_transition', `order ${id} cannot go from ${from} to ${to} (${why})`);
}

export function unknownCategory(categoryId: number): AppError {
  return new AppError('unknown_category', `body/categoryId ${categoryId} is not a known category (see GET /v1/categories)`);
}

export function duplicateCategory(name: string): AppError {
  return new AppError('category_exists', `a category named "${name}" already exists (names are unique, ignoring case)`);
}

/** The resource a write addresses must exist (a withdrawn pet or deleted category does not). */
export function assertFound<T>(what: string, resource: T | undefined): asserts resource is T {
  if (resource === undefined) throw notFound(what);
}

/**
 * If-Match, evaluated against the resource as the write's transaction has locked it: absent, it
 * holds; otherwise one listed tag must be the resource's current strong entity tag (or `*`).
 */
export function assertIfMatch(what: string, ifMatch: Condition | undefined, current: object): void {
  if (ifMatch === undefined || ifMatchPasses(ifMatch, entityTag(current))) return;
  throw new AppError('precondition_failed', `If-Match names none of the current entity tags of ${what}; nothing was changed (GET it for its current ETag)`);
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

const OPEN_STATUSES = OPEN_ORDER_STATUSES.join(' or ');

/** While an order for the pet is open (placed or approved) the pet's status is the order's. */
export function petHasOpenOrder(petId: number, change: 'status' | 'withdraw'): AppError {
  const what = change === 'status' ? 'its status cannot be changed' : 'it cannot be withdrawn';
  return new AppError('pet_has_open_order', `pet ${petId} has an open order (${OPEN_STATUSES}), so ${what}; cancel or deliver the order first`);
}

export function categoryInUse(categoryId: number): AppError {
  return new AppError('category_in_use', `category ${categoryId} still has animals; move or withdraw them first`);
}

export function webhookNotFound(id: number): AppError {
  return notFound(`webhook ${id}`);
}

export function deliveryNotFound(webhookId: number, deliveryId: number): AppError {
  return notFound(`delivery ${deliveryId} of webhook ${webhookId}`);
}

export function notAnAttempt(webhookId: number, deliveryId: number): AppError {
  return new AppError('not_found', `delivery ${deliveryId} of webhook ${webhookId} records the endpoint being disabled; it has no event to send`);
}

export function eventExpired(sequence: number): AppError {
  return new AppError('not_found', `event ${eventId(sequence)} is no longer kept (events are kept EVENT_RETENTION_DAYS); it cannot be sent again`);
}

export function webhookDisabled(id: number): AppError {
  return new AppError('webhook_disabled', `webhook ${id} is disabled; enable it (PATCH {"enabled": true}) before retrying a delivery`);
}

/** The error of attempts that were still pending when their endpoint was disabled. */
export const ENDPOINT_DISABLED = 'not attempted: the endpoint was disabled';
/** The error of an attempt whose event was purged before it could be made. */
export const EVENT_PURGED = 'not attempted: the event is no longer kept (EVENT_RETENTION_DAYS)';

/** The `error` of a `webhook.disabled` log entry. */
export function disabledBecause(failingSince: string): string {
  return `every attempt since ${failingSince} failed (WEBHOOK_DISABLE_AFTER_HOURS); enable the endpoint again to resume with new events`;
}
