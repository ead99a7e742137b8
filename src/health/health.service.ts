import { assertNotFuture } from '../calendar.ts';
import type { Clock } from '../clock.ts';
import { AppError, assertFound, invalid, notFound } from '../errors.ts';
import { write } from '../events/event.outbox.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { WriteContext } from '../events/event.store.ts';
import type { IdempotentResponse } from '../events/idempotency.store.ts';
import type { Storage, Transaction } from '../storage/storage.ts';
import type { HealthDueQuery, HealthKind, HealthRecord, ListHealthQuery, NewHealthRecord } from './health.schemas.ts';

// The health log's workflows. The log is evidence: a record is appended and never changed, except
// that it may be voided once, with a reason, and then stays in the log. Each workflow locks the
// pet's row first, so the writes of one animal's log queue one behind the other and its entry in
// the due list is always that of its latest record.

/** The rules of a record's dates that its schema cannot state: not in the future, next due not before it. */
export function assertRecordDates(input: NewHealthRecord, now: Date): void {
  assertNotFuture('date', input.date, now);
  if (input.nextDue !== undefined && input.nextDue < input.date)
    throw invalid(`body field "nextDue" must be on or after "date" (${input.date})`, {
      in: 'body',
      field: 'nextDue',
      rule: 'formatMinimum',
      message: 'the next care is due on or after the day of this record',
    });
}

/**
 * The due list's entry of the pet and kind, from what the log now holds: the latest record of the
 * kind that is not voided (latest date, then latest written) decides, with its nextDue — or, when it
 * has none, the pet is not due for that kind at all. A record written later about an earlier day
 * does not replace it.
 */
async function refreshDue(tx: Transaction, petId: number, kind: HealthKind): Promise<void> {
  const latest = await tx.health.latest(petId, kind);
  await tx.health.setDue(petId, kind, latest?.nextDue === undefined ? undefined : latest);
}

/** Appends a record to a live pet's log; records pet.health.recorded. */
export function appendRecord(storage: Storage, petId: number, input: NewHealthRecord, ctx: WriteContext<HealthRecord>): Promise<HealthRecord> {
  assertRecordDates(input, ctx.now);
  return write(storage, ctx, async (tx) => {
    assertFound(`pet ${petId}`, await tx.pets.lock(petId));
    const record = await tx.health.insert(petId, input, ctx.now);
    await refreshDue(tx, petId, record.kind);
    return { result: record, events: [{ type: 'pet.health.recorded', data: record }] };
  });
}

/** Voids a record of a live pet's log, once (409 already_voided after); records pet.health.voided. */
export function voidRecord(storage: Storage, petId: number, id: number, reason: string, ctx: WriteContext<HealthRecord>): Promise<HealthRecord> {
  return write(storage, ctx, async (tx) => {
    assertFound(`pet ${petId}`, await tx.pets.lock(petId));
    const current = await tx.health.lock(petId, id);
    assertFound(`health record ${id} of pet ${petId}`, current);
    if (current.voided !== undefined) throw alreadyVoided(current);
    const voided = await tx.health.void(id, reason, ctx.now);
    await refreshDue(tx, petId, voided.kind);
    return { result: voided, events: [{ type: 'pet.health.voided', data: voided }] };
  });
}

export function alreadyVoided(record: HealthRecord): AppError {
  return new AppError(
    'already_voided',
    `health record ${record.id} of pet ${record.petId} was voided at ${record.voided?.at}; a record is voided once, and stays in the log as it is`,
  );
}

export class HealthService {
  readonly #storage: Storage;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;

  constructor(storage: Storage, cursors: CursorCodec, clock: Clock) {
    this.#storage = storage;
    this.#cursors = cursors;
    this.#clock = clock;
  }

  append(petId: number, input: NewHealthRecord, idempotency?: IdempotentResponse<HealthRecord>): Promise<HealthRecord> {
    return appendRecord(this.#storage, petId, input, { now: this.#clock.now(), idempotency });
  }

  void(petId: number, id: number, reason: string): Promise<HealthRecord> {
    return voidRecord(this.#storage, petId, id, reason, { now: this.#clock.now() });
  }

  async get(petId: number, id: number): Promise<HealthRecord> {
    const record = await this.#storage.health.get(petId, id);
    if (record === undefined) throw notFound(`health record ${id} of pet ${petId}`);
    return record;
  }

  /** The pet's log, latest date first (ties: the later written first), voided records included. */
  async list(petId: number, q: ListHealthQuery): Promise<Page<HealthRecord>> {
    if ((await this.#storage.pets.get(petId)) === undefined) throw notFound(`pet ${petId}`);
    return this.#cursors.fetchPageAt(
      `health;${petId}`,
      q,
      async (limit, from) => ({ rows: await this.#storage.health.list({ petId, limit, after: from === undefined ? undefined : position(from) }) }),
      (r) => `${r.date} ${r.id}`,
    );
  }

  /** The due list: the latest live record of each kind of each live animal, with a nextDue before `before`. */
  due(q: HealthDueQuery): Promise<Page<HealthRecord>> {
    return this.#cursors.fetchPageAt(
      `health-due;${q.before}`,
      q,
      async (limit, from) => {
        const at = from === undefined ? undefined : position(from);
        return { rows: await this.#storage.health.due({ before: q.before, limit, after: at && { nextDue: at.date, id: at.id } }) };
      },
      (r) => `${r.nextDue} ${r.id}`,
    );
  }
}

/** A keyset position this service signed (`<date> <id>`), read back. */
function position(text: string): { readonly date: string; readonly id: number } {
  const [date, id] = text.split(' ');
  return { date, id: Number(id) };
}
