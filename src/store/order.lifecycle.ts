import type { PetStatus } from '../pets/pet.schemas.ts';
import type { OrderStatus } from './order.schemas.ts';

// The order state machine and what each state means for the pet. Pure; both engines use it.
const NEXT: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  placed: ['approved', 'cancelled'],
  approved: ['delivered', 'cancelled'],
  delivered: [],
  cancelled: [],
};

const PET_STATUS_FOR: Readonly<Record<OrderStatus, PetStatus>> = {
  placed: 'pending',
  approved: 'pending',
  delivered: 'sold',
  cancelled: 'available',
};

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return NEXT[from].includes(to);
}

export function petStatusFor(order: OrderStatus): PetStatus {
  return PET_STATUS_FOR[order];
}

export function allowedFrom(from: OrderStatus): readonly OrderStatus[] {
  return NEXT[from];
}
