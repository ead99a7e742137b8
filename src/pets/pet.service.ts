import type { CursorCodec } from '../http/paging.ts';
import type { PetRepository } from '../storage/storage.ts';
import type { ListPetsQuery, NewPet, Pet } from './pet.schemas.ts';

export interface Page<T> {
  readonly items: T[];
  /** Cursor for the next page, when more items may follow. */
  readonly next?: string;
}

/** A page of pets to send: `body` is the JSON array already serialised when the engine built it. */
export interface PetPage {
  readonly body: Pet[] | string;
  readonly next?: string;
}

export class PetService {
  readonly #pets: PetRepository;
  readonly #cursors: CursorCodec;

  constructor(pets: PetRepository, cursors: CursorCodec) {
    this.#pets = pets;
    this.#cursors = cursors;
  }

  create(input: NewPet): Promise<Pet> {
    return this.#pets.create({ name: input.name, categoryId: input.categoryId, status: input.status ?? 'available' });
  }

  get(id: number): Promise<Pet | undefined> {
    return this.#pets.get(id);
  }

  async list(q: ListPetsQuery): Promise<PetPage> {
    const limit = q.limit ?? 20;
    const scope = `pets;${q.status ?? ''}`;
    const afterId = q.cursor === undefined ? 0 : this.#cursors.decode(scope, q.cursor);
    if (this.#pets.listJson) {
      const page = await this.#pets.listJson({ limit, afterId, status: q.status });
      return { body: page.json, next: page.more && page.lastId !== undefined ? this.#cursors.encode(scope, page.lastId) : undefined };
    }
    const rows = await this.#pets.list({ limit: limit + 1, afterId, status: q.status });
    const { items, next } = this.#cursors.page(scope, rows, limit);
    return { body: items, next };
  }
}
