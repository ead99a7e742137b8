import type { Clock } from '../clock.ts';
import type { CategoryRepository, IdempotentResponse } from '../storage/storage.ts';
import type { Category } from './category.schemas.ts';

/** Categories for the API and the CLI alike: one set of rules (names validated by NewCategory). */
export class CategoryService {
  readonly #categories: CategoryRepository;
  readonly #clock: Clock;

  constructor(categories: CategoryRepository, clock: Clock) {
    this.#categories = categories;
    this.#clock = clock;
  }

  list(): Promise<Category[]> {
    return this.#categories.list();
  }

  get(id: number): Promise<Category | undefined> {
    return this.#categories.get(id);
  }

  create(name: string, idempotency?: IdempotentResponse<Category>): Promise<Category> {
    return this.#categories.create(name, { now: this.#clock.now(), idempotency });
  }

  rename(id: number, name: string): Promise<Category> {
    return this.#categories.rename(id, name, { now: this.#clock.now() });
  }

  remove(id: number): Promise<void> {
    return this.#categories.remove(id, { now: this.#clock.now() });
  }
}
