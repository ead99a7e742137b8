// The health log (health_records) and the due list (health_due: per pet and kind, the record that
// sets when care is next due), inside a workflow's transaction and for reads outside one.
import type { HealthKind, HealthRecord, NewHealthRecord } from '../../health/health.schemas.ts';
import { H_HEALTH_COLUMNS, HEALTH_COLUMNS, toHealthRecord, type HealthRow } from '../rows.ts';
import type { DueQuery, HealthQuery, HealthRepository, HealthTx } from '../../health/health.store.ts';
import { first, perDialect, type Dialect, type SqlDb } from './sql.db.ts';

// A pet's log, latest date first, ties newest first: the index (pet_id, given_on, id) backwards.
const LOG = (after: string) => `SELECT ${HEALTH_COLUMNS} FROM health_records WHERE pet_id = $1${after} ORDER BY given_on DESC, id DESC LIMIT $2`;
const LOG_FIRST = LOG('');
const LOG_AFTER = LOG(' AND (given_on, id) < ($3, $4)');
const GET_LIVE = `SELECT ${H_HEALTH_COLUMNS} FROM health_records h JOIN pets p ON p.id = h.pet_id
  WHERE h.id = $1 AND h.pet_id = $2 AND p.deleted_at IS NULL`;
// The due list walks health_due_next (next_due, record_id) from its start or its keyset position;
// withdrawn pets' entries are skipped as they are met.
const DUE = (after: string) => `SELECT ${H_HEALTH_COLUMNS} FROM health_due d
  JOIN health_records h ON h.id = d.record_id JOIN pets p ON p.id = d.pet_id
  WHERE d.next_due < $1${after} AND p.deleted_at IS NULL ORDER BY d.next_due, d.record_id LIMIT $2`;
const DUE_FIRST = DUE('');
const DUE_AFTER = DUE(' AND (d.next_due, d.record_id) > ($3, $4)');
const LOCK = perDialect((d) => `SELECT ${HEALTH_COLUMNS} FROM health_records WHERE id = $1 AND pet_id = $2 ${d.lock('FOR UPDATE')}`);
// The live records of one kind, from health_records_live_kind (pet_id, kind, given_on, id).
const LATEST = `SELECT ${HEALTH_COLUMNS} FROM health_records WHERE pet_id = $1 AND kind = $2 AND voided_at IS NULL
  ORDER BY given_on DESC, id DESC LIMIT 1`;
const INSERT = `INSERT INTO health_records (pet_id, kind, given_on, name, batch, given_by, notes, next_due, recorded_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${HEALTH_COLUMNS}`;
const VOID = `UPDATE health_records SET voided_at = $2, void_reason = $3 WHERE id = $1 RETURNING ${HEALTH_COLUMNS}`;
const SET_DUE = `INSERT INTO health_due (pet_id, kind, record_id, next_due) VALUES ($1, $2, $3, $4)
  ON CONFLICT (pet_id, kind) DO UPDATE SET record_id = excluded.record_id, next_due = excluded.next_due`;
const CLEAR_DUE = 'DELETE FROM health_due WHERE pet_id = $1 AND kind = $2';

/** The reads of the log and of the due list, for the plan tests (test/storage/health.test.ts). */
export const HEALTH_READS = { LOG_FIRST, LOG_AFTER, DUE_FIRST, DUE_AFTER, LATEST } as const;

const record = (row: HealthRow | undefined): HealthRecord | undefined => row && toHealthRecord(row);

export class SqlHealth implements HealthRepository {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async get(petId: number, id: number): Promise<HealthRecord | undefined> {
    return record(await first<HealthRow>(this.#db, GET_LIVE, [id, petId]));
  }

  async list(q: HealthQuery): Promise<HealthRecord[]> {
    const rows =
      q.after === undefined
        ? this.#db.all<HealthRow>(LOG_FIRST, [q.petId, q.limit])
        : this.#db.all<HealthRow>(LOG_AFTER, [q.petId, q.limit, q.after.date, q.after.id]);
    return (await rows).map(toHealthRecord);
  }

  async due(q: DueQuery): Promise<HealthRecord[]> {
    const rows =
      q.after === undefined
        ? this.#db.all<HealthRow>(DUE_FIRST, [q.before, q.limit])
        : this.#db.all<HealthRow>(DUE_AFTER, [q.before, q.limit, q.after.nextDue, q.after.id]);
    return (await rows).map(toHealthRecord);
  }
}

export class SqlHealthTx implements HealthTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async insert(petId: number, r: NewHealthRecord, at: Date): Promise<HealthRecord> {
    const params = [petId, r.kind, r.date, r.name, r.batch ?? null, r.givenBy, r.notes ?? null, r.nextDue ?? null, at.toISOString()];
    return toHealthRecord((await first<HealthRow>(this.#db, INSERT, params))!);
  }

  async lock(petId: number, id: number): Promise<HealthRecord | undefined> {
    return record(await first<HealthRow>(this.#db, LOCK(this.#d), [id, petId]));
  }

  async void(id: number, reason: string, at: Date): Promise<HealthRecord> {
    return toHealthRecord((await first<HealthRow>(this.#db, VOID, [id, at.toISOString(), reason]))!);
  }

  async latest(petId: number, kind: HealthKind): Promise<HealthRecord | undefined> {
    return record(await first<HealthRow>(this.#db, LATEST, [petId, kind]));
  }

  async setDue(petId: number, kind: HealthKind, due: HealthRecord | undefined): Promise<void> {
    if (due?.nextDue === undefined) await this.#db.run(CLEAR_DUE, [petId, kind]);
    else await this.#db.run(SET_DUE, [petId, kind, due.id, due.nextDue]);
  }
}
