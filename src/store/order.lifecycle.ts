import { AppError } from '../errors.ts';
import type { PetStatus } from '../pets/pet.schemas.ts';
import { ORDER_STATUSES, type OrderStatus } from './order.schemas.ts';

// The order state machine, and what each state means for the pet it names. Pure; the order
// workflows (order.service.ts) and the pet workflows use it.
const NEXT: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  placed: ['approved', 'cancelled'],
  approved: ['delivered', 'cancelled'],
  delivered: [],
  cancelled: [],
};

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return NEXT[from].includes(to);
}

export function allowedFrom(from: OrderStatus): readonly OrderStatus[] {
  return NEXT[from];
}

/** Orders that are not final: while one exists, its pet's status belongs to it. */
export const OPEN_ORDER_STATUSES: readonly OrderStatus[] = ORDER_STATUSES.filter((s) => NEXT[s].length > 0);

// The link between the two lifecycles.
const PET_STATUS_FOR: Readonly<Record<OrderStatus, PetStatus>> = {
  placed: 'pending',
  approved: 'pending',
  delivered: 'sold',
  cancelled: 'available',
};

/** The status of the pet while its order is in `order`. */
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
