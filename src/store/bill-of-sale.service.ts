import { notFound } from '../errors.ts';
import type { Storage } from '../storage/storage.ts';
import { renderBillOfSale, type StoreParticulars } from './bill-of-sale.html.ts';

/** The most health records a bill of sale lists: the latest first, as the log reads. */
const HEALTH_ROWS = 100;

/** Gathers what a bill of sale prints — the order, its buyer as the store holds them, the animal, its health log — and renders it. */
export class BillOfSaleService {
  readonly #storage: Storage;
  readonly #store: StoreParticulars;

  constructor(storage: Storage, store: StoreParticulars) {
    this.#storage = storage;
    this.#store = store;
  }

  async render(orderId: number): Promise<string> {
    const order = await this.#storage.orders.get(orderId);
    if (order === undefined) throw notFound(`order ${orderId}`);
    const [buyer, pet, health] = await Promise.all([
      order.customerId === undefined ? undefined : this.#storage.customers.record(order.customerId),
      this.#storage.pets.get(order.petId),
      this.#storage.health.list({ petId: order.petId, limit: HEALTH_ROWS }),
    ]);
    const category = pet === undefined ? undefined : (await this.#storage.categories.get(pet.categoryId))?.name;
    return renderBillOfSale({ store: this.#store, order, buyer, pet, category, health });
  }
}
