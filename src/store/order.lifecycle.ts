import type { OrderStatus } from './order.schemas.ts';

// The order state machine. Pure; both engines use it (through storage/rules.ts).
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
