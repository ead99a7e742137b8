// The orders' storage (storage/sql/sql.orders.ts).
import type { Price } from '../pets/pet.schemas.ts';
import type { Order, OrderStatus, SaleMethod } from './order.schemas.ts';

export interface OrderQuery {
  readonly limit: number;
  readonly afterId: number;
  readonly status?: OrderStatus;
  readonly petId?: number;
}

/** What an order records when it is placed. */
export interface OrderPlacement {
  readonly petId: number;
  /** Absent only during the deprecation period of the form without a customer. */
  readonly customerId?: number;
  readonly method: SaleMethod;
  /** The pet's price at the time; null when it had none. */
  readonly price: Price | null;
  /** The deposit of the hold the order is converted from. */
  readonly deposit?: Price;
}

export interface OrderRepository {
  get(id: number): Promise<Order | undefined>;
  list(query: OrderQuery): Promise<Order[]>;
  /** Every order of the customer, ascending by id (a customer has few). */
  ofCustomer(customerId: number): Promise<Order[]>;
}

export interface OrderTx {
  /** The order, locked FOR UPDATE. */
  lock(id: number): Promise<Order | undefined>;
  insert(order: OrderPlacement, status: OrderStatus, at: Date): Promise<Order>;
  setStatus(id: number, status: OrderStatus, at: Date): Promise<Order>;
  /** Whether an order for the pet is in one of `statuses`. */
  exists(petId: number, statuses: readonly OrderStatus[]): Promise<boolean>;
  /** Every order of the customer, ascending by id, as this transaction sees them. */
  ofCustomer(customerId: number): Promise<Order[]>;
}
