import { ORDER_STATUSES, type OrderStatus } from './order.schemas.ts';

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

/** Orders that are not final: while one exists, its pet's status belongs to it. */
export const OPEN_ORDER_STATUSES: readonly OrderStatus[] = ORDER_STATUSES.filter((s) => NEXT[s].length > 0);
