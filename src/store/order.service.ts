import type { Clock } from '../clock.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { Condition } from '../preconditions.ts';
import type { IdempotentResponse, OrderRepository } from '../storage/storage.ts';
import type { ListOrdersQuery, Order, OrderStatus } from './order.schemas.ts';

export class OrderService {
  readonly #orders: OrderRepository;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;

  constructor(orders: OrderRepository, cursors: CursorCodec, clock: Clock) {
    this.#orders = orders;
    this.#cursors = cursors;
    this.#clock = clock;
  }

  place(petId: number, idempotency?: IdempotentResponse<Order>): Promise<Order> {
    return this.#orders.place(petId, { now: this.#clock.now(), idempotency });
  }

  get(id: number): Promise<Order | undefined> {
    return this.#orders.get(id);
  }

  update(id: number, status: OrderStatus, ifMatch: Condition | undefined): Promise<Order> {
    return this.#orders.transition(id, status, { now: this.#clock.now(), ifMatch });
  }

  list(q: ListOrdersQuery): Promise<Page<Order>> {
    const scope = `orders;${q.status ?? ''};${q.petId ?? ''}`;
    return this.#cursors.fetchPage(scope, q, (limit, afterId = 0) => this.#orders.list({ limit, afterId, status: q.status, petId: q.petId }));
  }
}
