import { changesOf } from '../activity/activity.changes.ts';
import type { Clock } from '../clock.ts';
import { AppError, assertFound } from '../errors.ts';
import { withoutEvents, write } from '../events/event.outbox.ts';
import type { WriteContext } from '../events/event.store.ts';
import type { IdempotentResponse } from '../events/idempotency.store.ts';
import type { Storage } from '../storage/storage.ts';
import type { Category } from './category.schemas.ts';

/** Adds a category; records category.created. Names are unique among live categories, ignoring case. */
export function createCategory(storage: Storage, name: string, ctx: WriteContext<Category>): Promise<Category> {
  return write(storage, ctx, async (tx) => {
    const category = await tx.categories.insert(name);
    if (category === undefined) throw duplicateCategory(name);
    return { result: category, events: [{ type: 'category.created', data: category }] };
  });
}

/** Renames (case changes included); records category.updated when the name really changed. */
export function renameCategory(storage: Storage, id: number, name: string, ctx: WriteContext<Category>): Promise<Category> {
  return write(storage, ctx, async (tx) => {
    const current = await tx.categories.lock(id, 'rename');
    assertFound(`category ${id}`, current);
    if (current.name === name) return withoutEvents(current);
    const category = await tx.categories.rename(id, name);
    if (category === undefined) throw duplicateCategory(name);
    return { result: category, events: [{ type: 'category.updated', data: category, changes: changesOf(current, category) }] };
  });
}

/**
 * Deletes a category no live pet belongs to (its row stays for withdrawn pets; its name is free
 * again); records category.deleted with {id}. Its lock waits for pets being put into it meanwhile,
 * which then either committed first (in use) or find it gone (unknown_category).
 */
export function removeCategory(storage: Storage, id: number, ctx: WriteContext<void>): Promise<void> {
  return write(storage, ctx, async (tx) => {
    assertFound(`category ${id}`, await tx.categories.lock(id, 'remove'));
    if (await tx.pets.anyIn(id)) throw categoryInUse(id);
    await tx.categories.remove(id, ctx.now);
    return { result: undefined, events: [{ type: 'category.deleted', data: { id } }] };
  });
}

export function duplicateCategory(name: string): AppError {
  return new AppError('category_exists', `a category named "${name}" already exists (names are unique, ignoring case)`);
}

export function categoryInUse(id: number): AppError {
  return new AppError('category_in_use', `category ${id} still has animals; move or withdraw them first`);
}

/** Categories for the API and the CLI alike: one set of rules (names validated by NewCategory). */
export class CategoryService {
  readonly #storage: Storage;
  readonly #clock: Clock;

  constructor(storage: Storage, clock: Clock) {
    this.#storage = storage;
    this.#clock = clock;
  }

  list(): Promise<Category[]> {
    return this.#storage.categories.list();
  }

  get(id: number): Promise<Category | undefined> {
    return this.#storage.categories.get(id);
  }

  create(name: string, idempotency?: IdempotentResponse<Category>): Promise<Category> {
    return createCategory(this.#storage, name, { now: this.#clock.now(), idempotency });
  }

  rename(id: number, name: string): Promise<Category> {
    return renameCategory(this.#storage, id, name, { now: this.#clock.now() });
  }

  remove(id: number): Promise<void> {
    return removeCategory(this.#storage, id, { now: this.#clock.now() });
  }
}
