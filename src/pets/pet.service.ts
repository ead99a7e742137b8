import type { Clock } from '../clock.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { Condition } from '../preconditions.ts';
import type { IdempotentResponse, PetRepository } from '../storage/storage.ts';
import type { ListPetsQuery, NewPet, Pet, PetPatch } from './pet.schemas.ts';

export class PetService {
  readonly #pets: PetRepository;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;

  constructor(pets: PetRepository, cursors: CursorCodec, clock: Clock) {
    this.#pets = pets;
    this.#cursors = cursors;
    this.#clock = clock;
  }

  create(input: NewPet, idempotency?: IdempotentResponse<Pet>): Promise<Pet> {
    return this.#pets.create({ name: input.name, categoryId: input.categoryId, status: input.status ?? 'available' }, { now: this.#clock.now(), idempotency });
  }

  get(id: number): Promise<Pet | undefined> {
    return this.#pets.get(id);
  }

  list(q: ListPetsQuery): Promise<Page<Pet>> {
    // The filters are bound into the cursor. Without categoryId the scope is the one cursors had
    // before that filter existed, so cursors issued then keep working.
    const scope = `pets;${q.status ?? ''}${q.categoryId === undefined ? '' : `;${q.categoryId}`}`;
    return this.#cursors.fetchPage(scope, q, (limit, afterId = 0) => this.#pets.list({ limit, afterId, status: q.status, categoryId: q.categoryId }));
  }

  update(id: number, patch: PetPatch, ifMatch: Condition | undefined): Promise<Pet> {
    return this.#pets.update(id, patch, { now: this.#clock.now(), ifMatch });
  }

  withdraw(id: number, ifMatch: Condition | undefined): Promise<void> {
    return this.#pets.withdraw(id, { now: this.#clock.now(), ifMatch });
  }
}
