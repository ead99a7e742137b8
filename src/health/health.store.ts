// The health log's storage (storage/sql/sql.health.ts): the records, and per pet and kind the
// record that sets when care is next due. Which record that is, is the workflow's to decide
// (health.service.ts); the engines store and read what they are given.
import type { HealthKind, HealthRecord, NewHealthRecord } from './health.schemas.ts';

/** A health record's keyset position in its pet's log: its date, then its id. */
export interface HealthPosition {
  readonly date: string;
  readonly id: number;
}

/** Keyset page request over one pet's health log: latest date first, ties newest id first. */
export interface HealthQuery {
  readonly petId: number;
  readonly limit: number;
  /** Records after this position in that order. */
  readonly after?: HealthPosition;
}

/** A due record's keyset position in the due list: its nextDue, then its id. */
export interface DuePosition {
  readonly nextDue: string;
  readonly id: number;
}

/** Keyset page request over the due list: the due records whose nextDue is before `before`, earliest first, ties by id. */
export interface DueQuery {
  readonly before: string;
  readonly limit: number;
  readonly after?: DuePosition;
}

/** The health log, read side (written by the health workflows only, through HealthTx). */
export interface HealthRepository {
  /** The record of a live pet; undefined when the pet is not live or has no record with this id. */
  get(petId: number, id: number): Promise<HealthRecord | undefined>;
  /** A page of the pet's log, voided records included (the caller finds out whether the pet is live). */
  list(query: HealthQuery): Promise<HealthRecord[]>;
  /**
   * A page of the due list: for each live pet and kind, the record HealthTx.setDue last named, when
   * its nextDue is before `query.before`; from an index on (nextDue, id).
   */
  due(query: DueQuery): Promise<HealthRecord[]>;
}

export interface HealthTx {
  /** Appends a record to a pet this transaction locked. */
  insert(petId: number, input: NewHealthRecord, at: Date): Promise<HealthRecord>;
  /** The pet's record, locked FOR UPDATE; undefined when the pet has no record with this id. */
  lock(petId: number, id: number): Promise<HealthRecord | undefined>;
  /** Marks a record this transaction locked void, at `at`, for `reason`; returns it. */
  void(id: number, reason: string, at: Date): Promise<HealthRecord>;
  /** The pet's latest record of `kind` that is not voided: the latest date, of those the highest id. */
  latest(petId: number, kind: HealthKind): Promise<HealthRecord | undefined>;
  /** Makes `record` (which has a nextDue) the pet's entry of `kind` in the due list; undefined removes the entry. */
  setDue(petId: number, kind: HealthKind, record: HealthRecord | undefined): Promise<void>;
}
