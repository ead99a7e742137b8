import { changesOf } from '../activity/activity.changes.ts';
import type { Clock } from '../clock.ts';
import { AppError, assertFound, invalid } from '../errors.ts';
import { canonicalJson } from '../json.ts';
import { type Change, withoutEvents, write } from '../events/event.outbox.ts';
import { csvChunks, csvFilename, EXPORT_PAGE_SIZE, type CsvExport } from '../csv.ts';
import { type CursorCodec, everyPage, type Page } from '../paging.ts';
import { assertIfMatch, type Condition } from '../preconditions.ts';
import type { ConditionalWrite, WriteContext } from '../events/event.store.ts';
import type { IdempotentResponse } from '../events/idempotency.store.ts';
import type { PetCreate, PetIndex } from './pet.store.ts';
import type { Storage, Transaction } from '../storage/storage.ts';
import { OPEN_ORDER_STATUSES } from '../store/order.lifecycle.ts';
import { petOnHold } from '../holds/hold.rules.ts';
import { type PetListing, passes, petListing } from './pet.listing.ts';
import { petCsvHeader, petCsvRecord } from './pet.csv.ts';
import {
  type BulkRefusal,
  type BulkResult,
  type ExportPetsQuery,
  NewPet,
  PET_FIELDS,
  PetPatch,
  type ListPetsQuery,
  type Pet,
  type Price,
  type PriceInput,
} from './pet.schemas.ts';
import { nameKey } from './pet.fold.ts';
import { searchText } from './pet.search.ts';
import { breedTerms, checkRecord, DEFAULT_RECORD_RULE, microchipInUse, normaliseMicrochip, type RecordRule, recordState } from './pet.record.ts';

// The pet workflows, each in one write transaction over the pet row it locks (docs/architecture.md).
// Locks go pet → category → the inventory row (kept by the engines' triggers), and an order's
// workflows take order → pet: no two writes wait on each other in a circle.

/**
 * Adds a pet to a live category; records pet.created. A microchip number another live pet has is
 * refused (409), naming that pet when `reveal` (the caller may read pets).
 */
export function createPet(storage: Storage, input: Omit<PetCreate, 'at'>, ctx: WriteContext<Pet>, reveal = false): Promise<Pet> {
  checkRecord(input, ctx.now);
  return write(storage, ctx, (tx) => insertPet(tx, input, ctx.now, reveal));
}

/** createPet's workflow over a transaction (an import's row runs it too: imports/import.apply.ts); `input` passed checkRecord. */
export async function insertPet(tx: Transaction, input: Omit<PetCreate, 'at'>, now: Date, reveal: boolean): Promise<Change<Pet>> {
  if (input.microchip !== undefined) await assertMicrochipFree(tx, input.microchip, undefined, reveal);
  const pet = await tx.pets.insert({ ...input, at: now });
  if (pet === undefined) throw unknownCategory(input.categoryId);
  return { result: pet, events: [{ type: 'pet.created', data: pet }] };
}

/**
 * Applies `patch`; records pet.updated when the pet really changed (an unchanged pet is not
 * written). A new category must be live; the status cannot change while an order for the pet is
 * open. Concurrent changes of one pet queue on its row lock, each checking If-Match and these
 * rules against what the one before it committed.
 */
export function updatePet(
  storage: Storage,
  id: number,
  patch: PetPatch,
  currency: string,
  ctx: ConditionalWrite<Pet>,
  rule: RecordRule = DEFAULT_RECORD_RULE,
  reveal = false,
): Promise<Pet> {
  return write(storage, ctx, (tx) => changePet(tx, id, patch, currency, ctx, rule, reveal));
}

/** updatePet's workflow over a transaction (an import's row runs it too: imports/import.apply.ts); no event when nothing changed. */
export async function changePet(
  tx: Transaction,
  id: number,
  patch: PetPatch,
  currency: string,
  ctx: Pick<ConditionalWrite<Pet>, 'now' | 'ifMatch'>,
  rule: RecordRule,
  reveal: boolean,
): Promise<Change<Pet>> {
  const current = await tx.pets.lock(id);
  assertFound(`pet ${id}`, current);
  assertIfMatch(`pet ${id}`, ctx.ifMatch, current);
  const { next, changed } = patchPet(current, patch, currency, rule);
  if (!changed) return withoutEvents(current);
  checkRecord(next, ctx.now);
  if (next.microchip !== undefined && next.microchip !== current.microchip) await assertMicrochipFree(tx, next.microchip, id, reveal);
  if (next.categoryId !== current.categoryId && !(await tx.categories.keepLive(next.categoryId))) throw unknownCategory(next.categoryId);
  if (next.status !== current.status && (await tx.orders.exists(id, OPEN_ORDER_STATUSES))) throw petHasOpenOrder(id, 'status');
  await assertNotHeld(tx, id, next.status !== current.status);
  const pet = await savePet(tx, current, next, ctx.now);
  return { result: pet, events: [{ type: 'pet.updated', data: pet, changes: changesOf(current, pet) }] };
}

/** While a live hold keeps an animal for a customer, its status is the hold's and it cannot be withdrawn (409 pet_on_hold). */
async function assertNotHeld(tx: Transaction, id: number, changes: boolean): Promise<void> {
  const hold = changes ? await tx.holds.liveFor(id) : undefined;
  if (hold !== undefined) throw petOnHold(id, hold);
}

/** The microchip number is no other live pet's (`self`: the pet being changed); else 409 microchip_in_use. */
async function assertMicrochipFree(tx: Transaction, chip: string, self: number | undefined, reveal: boolean): Promise<void> {
  const holder = await tx.pets.microchipHolder(chip);
  if (holder !== undefined && holder !== self) throw microchipInUse(chip, holder, reveal);
}

/** Writes `next` over `current` (a pet the transaction locked), its updatedAt `now` and its index rewritten. */
export function savePet(tx: Transaction, current: Pet, next: Pet, now: Date): Promise<Pet> {
  return tx.pets.update({ ...next, updatedAt: now.toISOString() }, indexOf(next), indexOf(current).terms);
}

/** What a pet's values follow from the store's settings: prices in its currency, the record rule. */
export interface PetSettings {
  readonly currency: string;
  readonly record: RecordRule;
}

/**
 * The row a new pet is inserted as (its timestamps are the write's): `status` defaults to
 * available, the price is in the store's currency, the microchip number normalised, the record's
 * state under the store's rule.
 */
export function newPetRecord(input: NewPet, currency: string, rule: RecordRule = DEFAULT_RECORD_RULE): Omit<PetCreate, 'at'> {
  const record: Record<string, unknown> = {};
  for (const member of SENT) {
    const given = (input as Record<string, unknown>)[member];
    const value = given === undefined ? DEFAULTS[member] : fromInput(member, given, currency);
    if (value !== undefined) record[member] = value;
  }
  const pet = { ...record, ...recordState(record, rule) } as Omit<PetCreate, 'at' | keyof PetIndex>;
  return { ...pet, ...indexOf(pet) };
}

/** What the engines index of a pet: its search words, its name's sort key (pets/pet.search.ts) and its filter terms. */
export function indexOf(pet: Pick<Pet, 'name'> & Partial<Pet>): PetIndex {
  return { searchText: searchText(pet), nameKey: nameKey(pet.name), terms: [...(pet.tags ?? []), ...breedTerms(pet.breed)] };
}

/** Where the database keeps the rule its animals' record state was last brought to (Storage.setting). */
export const RECORD_RULE_SETTING = 'record-rule';

/**
 * Brings every live pet's record state (recordComplete, recordMissing) to the store's rule, which
 * RECORD_REQUIRED_FIELDS may have changed since it was written: read in id order, a page at a
 * time, and the pets whose state differs rewritten (their updatedAt kept: the animal did not
 * change; no event). Returns how many. The rule it last applied is kept in the database, so a
 * start-up under the same rule reads nothing (a read of every pet is about a second per 20,000 on
 * SQLite); the first start-up after migration 15 reads them once.
 */
export async function applyRecordRule(storage: Storage, rule: RecordRule, batch = 500): Promise<number> {
  const applied = JSON.stringify(rule);
  if ((await storage.setting(RECORD_RULE_SETTING)) === applied) return 0;
  const done = await restateRecords(storage, rule, batch);
  await storage.saveSetting(RECORD_RULE_SETTING, applied);
  return done;
}

async function restateRecords(storage: Storage, rule: RecordRule, batch: number): Promise<number> {
  let done = 0;
  for (let after: number | undefined; ; ) {
    const { pets } = await storage.pets.list({ limit: batch, after: after === undefined ? undefined : { id: after } });
    const stale = pets.filter((pet) => !same(recordState(pet, rule).recordMissing, pet.recordMissing));
    if (stale.length > 0) {
      await storage.transaction(async (tx) => {
        for (const { id } of stale) {
          const current = await tx.pets.lock(id);
          if (current === undefined) continue;
          await tx.pets.restate(id, recordState(current, rule));
          done++;
        }
      });
    }
    if (pets.length < batch) return done;
    after = pets.at(-1)!.id;
  }
}

/**
 * Writes the index of the pets that have none — rows written before migration 9, or by an
 * instance of the release before it during a rolling deploy — in batches; returns how many.
 */
export async function indexUnindexedPets(storage: Storage, batch = 500): Promise<number> {
  let done = 0;
  for (;;) {
    const pets = await storage.pets.unindexed(batch);
    if (pets.length === 0) return done;
    await storage.transaction(async (tx) => {
      for (const pet of pets) if (await tx.pets.reindex(pet.id, indexOf(pet))) done++;
    });
    if (pets.length < batch) return done;
  }
}

/**
 * Withdraws the pet (it keeps its row; no read returns it again); records pet.deleted with {id}.
 * Refused while an order for it is open. Against placeOrder, which locks the pet too: either the
 * order committed first and is seen open here, or the withdrawal did and the order finds no pet.
 */
export function withdrawPet(storage: Storage, id: number, ctx: ConditionalWrite<void>): Promise<void> {
  return write(storage, ctx, async (tx) => {
    const current = await tx.pets.lock(id);
    assertFound(`pet ${id}`, current);
    assertIfMatch(`pet ${id}`, ctx.ifMatch, current);
    if (await tx.orders.exists(id, OPEN_ORDER_STATUSES)) throw petHasOpenOrder(id, 'withdraw');
    await assertNotHeld(tx, id, true);
    await tx.pets.withdraw(current, ctx.now, indexOf(current).terms);
    return { result: undefined, events: [{ type: 'pet.deleted', data: { id } }] };
  });
}

// What a client may send of a new pet (NewPet) and change of one (PetPatch), as the schemas say,
// in the field table's order (PET_FIELDS, pet.schemas.ts).
const SENT = PET_FIELDS.map((f) => f.member).filter((m) => m in NewPet.properties);
const PATCHED = new Set(PET_FIELDS.map((f) => f.member).filter((m) => m in PetPatch.properties));
/** What a member left out of a new pet, or removed by a patch's `null`, becomes (absent when not named here). */
const DEFAULTS: Partial<Pet> = { status: 'available', tags: [] };

/** A member's value as a pet keeps it, from what a client sent: a price is set in `currency`, the store's; a microchip number normalised. */
function fromInput(member: keyof Pet, given: unknown, currency: string): unknown {
  if (member === 'price') return priceOf(given as PriceInput, currency);
  if (member === 'microchip') return normaliseMicrochip(given as string, { in: 'body', field: 'microchip' });
  return given;
}

/**
 * Whether two values of a member are the same: equal scalars, or lists and objects with the same JSON
 * whatever order an object's keys were written in (a breed sent as `{mixed, primary}` and read back
 * from a CSV row as `{primary, mixed}` is one breed).
 */
function same(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && canonicalJson(a) === canonicalJson(b));
}

/**
 * The pet after `patch` (a JSON merge patch: a field absent is kept, `null` removes an optional
 * one); `changed` is false when every field given already had its value. A price is set in the
 * store's currency; the record's state follows the store's rule.
 */
export function patchPet(current: Pet, patch: PetPatch, currency: string, rule: RecordRule = DEFAULT_RECORD_RULE): { next: Pet; changed: boolean } {
  // The schema's key order, as the engines read a pet back (storage/rows.ts).
  const next: Record<string, unknown> = {};
  let changed = false;
  for (const { member } of PET_FIELDS) {
    let value: unknown = current[member];
    const given = PATCHED.has(member) ? (patch as Record<string, unknown>)[member] : undefined;
    if (given !== undefined) {
      value = given === null ? DEFAULTS[member] : fromInput(member, given, currency);
      if (!same(value, current[member])) changed = true;
    }
    // The record's members come before its state in the table's order.
    if (member === 'recordComplete' || member === 'recordMissing') value = recordState(next, rule)[member];
    if (value !== undefined) next[member] = value;
  }
  return { next: next as Pet, changed };
}

/** A price as given, in the store's currency; a price in another currency is refused (nothing converts it). */
export function priceOf(input: PriceInput, currency: string): Price {
  if (input.currency !== undefined && input.currency !== currency) {
    throw invalid(`body field "price.currency" must be ${currency}, the store's currency (STORE_CURRENCY), or left out; got ${input.currency}`, {
      in: 'body',
      field: 'price.currency',
      rule: 'const',
      message: `prices are in ${currency}, the shop's currency`,
    });
  }
  return { amount: input.amount, currency };
}

export function unknownCategory(categoryId: number): AppError {
  return new AppError('unknown_category', `body/categoryId ${categoryId} is not a known category (see GET /v1/categories)`);
}

const OPEN_STATUSES = OPEN_ORDER_STATUSES.join(' or ');

/** While an order for the pet is open (placed or approved) the pet's status is the order's. */
export function petHasOpenOrder(petId: number, change: 'status' | 'withdraw'): AppError {
  const what = change === 'status' ? 'its status cannot be changed' : 'it cannot be withdrawn';
  return new AppError('pet_has_open_order', `pet ${petId} has an open order (${OPEN_STATUSES}), so ${what}; cancel or deliver the order first`);
}

export class PetService {
  readonly #storage: Storage;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;
  readonly #settings: PetSettings;

  constructor(storage: Storage, cursors: CursorCodec, clock: Clock, settings: PetSettings) {
    this.#storage = storage;
    this.#cursors = cursors;
    this.#clock = clock;
    this.#settings = settings;
  }

  /** `reveal`: the caller may read pets, so a refusal may name another animal. */
  create(input: NewPet, idempotency?: IdempotentResponse<Pet>, reveal = false): Promise<Pet> {
    const now = this.#clock.now();
    return createPet(this.#storage, newPetRecord(input, this.#settings.currency, this.#settings.record), { now, idempotency }, reveal);
  }

  get(id: number): Promise<Pet | undefined> {
    return this.#storage.pets.get(id);
  }

  list(q: ListPetsQuery): Promise<Page<Pet>> {
    // The filters and the sort are bound into the cursor (PetListing.scope).
    const listing = petListing(q);
    const { ids } = listing;
    return this.#cursors.fetchPageAt(
      listing.scope,
      q,
      ids === undefined
        ? async (limit, from) => {
            const { pets, walkedTo } = await this.#storage.pets.list({ ...listing.query, limit, after: from === undefined ? undefined : listing.parse(from) });
            return { rows: pets, resumeAt: walkedTo && listing.at(walkedTo) };
          }
        : async (limit, from) => ({ rows: await this.#named(ids, listing, limit, from === undefined ? undefined : Number(from)) }),
      listing.position,
    );
  }

  /**
   * Every animal the listing `q` shows, in its order, as CSV (pets/pet.csv.ts): the listing's own
   * pages, `pageSize` animals each, read as the reader takes them. A query the listing refuses is
   * refused before anything is sent. The category is written by its name as of the export's start.
   */
  async exportCsv(q: ExportPetsQuery, pageSize = EXPORT_PAGE_SIZE): Promise<CsvExport> {
    const filename = csvFilename('pets', this.#clock.now());
    const pages = await everyPage((cursor) => this.list({ ...q, limit: pageSize, cursor }));
    const names = new Map((await this.#storage.categories.list()).map((c) => [c.id, c.name]));
    return { filename, chunks: csvChunks(petCsvHeader(), pages, (pet) => petCsvRecord(pet, (id) => names.get(id))) };
  }

  /**
   * `id=…` (at most 100): the live pets among `ids` after the cursor's id, passing the other filters,
   * up to `limit`. Read by id a page's worth at a time, together (the PostgreSQL engine makes the
   * lookups of one loop turn one query); withdrawn and unknown ids are skipped.
   */
  async #named(ids: readonly number[], listing: PetListing, limit: number, after: number | undefined): Promise<Pet[]> {
    const { descending } = listing.query;
    let rest = after === undefined ? ids : ids.filter((id) => (descending ? id < after : id > after));
    const found: Pet[] = [];
    while (found.length < limit && rest.length > 0) {
      const batch = rest.slice(0, limit - found.length);
      rest = rest.slice(batch.length);
      for (const pet of await Promise.all(batch.map((id) => this.#storage.pets.get(id)))) {
        if (pet !== undefined && passes(listing.query, pet)) found.push(pet);
      }
    }
    return found;
  }

  update(id: number, patch: PetPatch, ifMatch: Condition | undefined, reveal = false): Promise<Pet> {
    return updatePet(this.#storage, id, patch, this.#settings.currency, { now: this.#clock.now(), ifMatch }, this.#settings.record, reveal);
  }

  /**
   * Applies `patch` to each of `ids` through updatePet, the single PATCH's workflow, one
   * transaction per animal in ascending id order (the lock order every write keeps): each animal
   * is changed or refused under its own rules, and one refusal undoes no other change. The
   * response of an Idempotency-Key request is stored in a last transaction of its own; a retry
   * after a crash before it re-applies the same patch, which changes nothing already changed
   * (docs/api.md, "Bulk changes").
   */
  async bulkUpdate(ids: readonly number[], patch: PetPatch, idempotency?: IdempotentResponse<BulkResult>, reveal = false): Promise<BulkResult> {
    const now = this.#clock.now();
    const updated: Pet[] = [];
    const refused: BulkRefusal[] = [];
    for (const id of [...ids].sort((a, b) => a - b)) {
      try {
        updated.push(await updatePet(this.#storage, id, patch, this.#settings.currency, { now }, this.#settings.record, reveal));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        refused.push({ id, error: { code: error.code, message: error.message, status: error.status } });
      }
    }
    const result = { updated, refused };
    return idempotency ? write(this.#storage, { now, idempotency }, async () => withoutEvents(result)) : result;
  }

  withdraw(id: number, ifMatch: Condition | undefined): Promise<void> {
    return withdrawPet(this.#storage, id, { now: this.#clock.now(), ifMatch });
  }
}
