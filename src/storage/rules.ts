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
