// The pets' storage, as the pets domain uses it: reads outside a workflow (PetRepository) and the
// pet's statements inside one (PetTx). Engines implement them (storage/sql/sql.pets.ts and each
// engine's read path); they decide nothing.
import type { Inventory } from '../store/inventory.schemas.ts';
import type { Pet, PetSex, PetStatus } from './pet.schemas.ts';

/** What the engines index of a pet, as the pets domain writes it (pets/pet.search.ts). */
export interface PetIndex {
  /** The words search matches, folded, one space between. */
  readonly searchText: string;
  /** What `sort=name` orders by. */
  readonly nameKey: string;
  /** The terms the tag and breed filters find the pet by: its tags, and its breed's words as `breed:<word>` (pets/pet.record.ts). */
  readonly terms: readonly string[];
}

/**
 * A new pet: every member of Pet but those the engines assign (its id, its timestamps: `at`) or
 * another statement keeps (photoUrls, PhotoTx), as the pets domain completed them (newPetRecord); and its index.
 */
export type PetCreate = PetIndex &
  Readonly<Omit<Pet, 'id' | 'photoUrls' | 'createdAt' | 'updatedAt'>> & {
    /** createdAt and updatedAt. */
    readonly at: Date;
  };

/** The orders a listing of pets comes in: `id` or a sortable field of PET_FIELDS (pets/pet.schemas.ts). */
export type PetOrderKey = keyof Pet;

/** A row's keyset position: its id and, unless the order is by id, its sort value (name key, price or createdAt). */
export interface PetPosition {
  readonly id: number;
  readonly value?: string | number;
}

/**
 * Keyset page request: live pets matching every filter given, in `order` (ties by id in the same
 * direction), after `after` when given, at most `limit`. The pets domain asks only for the
 * combinations an index serves (pets/pet.listing.ts).
 */
export interface PetQuery {
  readonly limit: number;
  /** By id when not given. */
  readonly order?: PetOrderKey;
  readonly descending?: boolean;
  readonly after?: PetPosition;
  readonly status?: PetStatus;
  readonly categoryId?: number;
  /** Pets carrying every one of these tags. */
  readonly tags?: readonly string[];
  /** Search words, folded (pets/pet.search.ts): each must be a word, or the start of one, of the pet's search text. */
  readonly words?: readonly string[];
  readonly sex?: PetSex;
  /** Pets whose record is complete (true) or incomplete (false) under the store's rule. */
  readonly recordComplete?: boolean;
  /** The pet with this microchip number, normalised (at most one live pet has it). */
  readonly microchip?: string;
}

/** A page of pets as the storage read it. */
export interface PetPage {
  /** At most `limit` pets, in the order asked for. */
  readonly pets: Pet[];
  /**
   * Set when a bounded walk (a broad search or tag filter in an order other than id) ended before
   * it found `limit` pets and more pets follow: the position the next page goes on from.
   */
  readonly walkedTo?: PetPosition;
}

/**
 * Pets. A withdrawn pet keeps its row (orders name it; its id is never reused) but no read returns
 * it, and no lock finds it.
 */
export interface PetRepository {
  get(id: number): Promise<Pet | undefined>;
  list(query: PetQuery): Promise<PetPage>;
  /** Live pets per status, and the value of the available ones per currency, as of one committed state; read from maintained sums, never summed. */
  inventory(): Promise<Inventory>;
  /** Pets whose index was never written (rows of the release before migration 9), lowest ids first. */
  unindexed(limit: number): Promise<Pet[]>;
}

export interface PetTx {
  /** The live pet, locked FOR UPDATE. */
  lock(id: number): Promise<Pet | undefined>;
  /**
   * Inserts a pet into a live category, holding the category as CategoryTx.keepLive does;
   * undefined (nothing inserted) when categoryId names no live category.
   */
  insert(input: PetCreate): Promise<Pet | undefined>;
  /** Writes every field of `next`, a pet this transaction locked, and its index; `previous` are the terms its index held. */
  update(next: Pet, index: PetIndex, previous: PetIndex['terms']): Promise<Pet>;
  /**
   * The live pet that has the microchip number `chip` (normalised), if any. Until the transaction
   * ends, another one asking about the same number waits: what it then finds includes this one's write.
   */
  microchipHolder(chip: string): Promise<number | undefined>;
  /** Writes the record state of a pet this transaction locked (applyRecordRule: the rule changed, not the pet). */
  restate(id: number, state: Pick<Pet, 'recordComplete' | 'recordMissing'>): Promise<void>;
  /** Writes the index of a pet that has none (PetRepository.unindexed); false when it has one by now. */
  reindex(id: number, index: PetIndex): Promise<boolean>;
  /** Withdraws the pet; `terms` are the terms its index holds. */
  withdraw(pet: Pet, at: Date, terms: PetIndex['terms']): Promise<void>;
  /** Whether a live pet belongs to the category. */
  anyIn(categoryId: number): Promise<boolean>;
}
