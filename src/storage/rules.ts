// Domain checks and their client-facing messages, shared by every engine so that SQLite and
// PostgreSQL refuse the same requests with the same words. Engines call these inside their
// transactions, after reading the rows they have locked.
import { AppError } from '../errors.ts';
import type { PetStatus } from '../pets/pet.schemas.ts';
import { allowedFrom, canTransition } from '../store/order.lifecycle.ts';
import type { OrderStatus } from '../store/order.schemas.ts';

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

/** The order must exist and the lifecycle must allow moving it from `current` to `to`. */
export function assertTransition<T extends { readonly status: OrderStatus }>(id: number, order: T | undefined, to: OrderStatus): asserts order is T {
  if (order === undefined) throw new AppError('not_found', `order ${id} does not exist`);
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
  return new AppError('validation_failed', `a category named "${name}" already exists`);
}

export function webhookNotFound(id: number): AppError {
  return new AppError('not_found', `webhook ${id} does not exist`);
}

export function deliveryNotFound(webhookId: number, deliveryId: number): AppError {
  return new AppError('not_found', `delivery ${deliveryId} of webhook ${webhookId} does not exist`);
}

export function notAnAttempt(webhookId: number, deliveryId: number): AppError {
  return new AppError('not_found', `delivery ${deliveryId} of webhook ${webhookId} records the endpoint being disabled; it has no event to send`);
}

export function eventExpired(eventId: number): AppError {
  return new AppError('not_found', `event evt_${eventId} is no longer kept (events are kept EVENT_RETENTION_DAYS); it cannot be sent again`);
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
