// The orders' storage (storage/sql/sql.orders.ts).
import type { Price } from '../pets/pet.schemas.ts';
import type { Order, OrderStatus } from './order.schemas.ts';

export interface OrderQuery {
  readonly limit: number;
  readonly afterId: number;
  readonly status?: OrderStatus;
  readonly petId?: number;
}

export interface OrderRepository {
  get(id: number): Promise<Order | undefined>;
  list(query: OrderQuery): Promise<Order[]>;
}

export interface OrderTx {
  /** The order, locked FOR UPDATE. */
  lock(id: number): Promise<Order | undefined>;
  /** `price`: the pet's at the time, recorded on the order; null when it had none. */
  insert(petId: number, status: OrderStatus, price: Price | null, at: Date): Promise<Order>;
  setStatus(id: number, status: OrderStatus, at: Date): Promise<Order>;
  /** Whether an order for the pet is in one of `statuses`. */
  exists(petId: number, statuses: readonly OrderStatus[]): Promise<boolean>;
}
