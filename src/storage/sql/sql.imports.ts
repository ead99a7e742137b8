// Imports: the job and its rows (imports/import.store.ts). A row is applied in the transaction that
// writes its animal: takeRow locks it while pending, settleRow records its outcome.
import type { ImportFormat, ImportState, RowOutcome } from '../../imports/import.schemas.ts';
import type { ImportCounts, ImportRecord, ImportRepository, ImportRow, ImportTx, RowError } from '../../imports/import.store.ts';
import { first, LIVE, perDialect, type Dialect, type SqlDb, type SqlParam } from './sql.db.ts';

const COUNTS = ['rows', 'invalid', 'created', 'updated', 'unchanged', 'refused'] as const;
const COUNT_COLUMNS = ['row_count', 'invalid_count', 'created_count', 'updated_count', 'unchanged_count', 'refused_count'] as const;
const COLUMNS = `id, state, format, create_categories, failure, ${COUNT_COLUMNS.join(', ')}, created_at, updated_at`;
const ROW_COLUMNS = 'line, outcome, pet_id, category, data, field, code, message';

interface ImportRowRecord {
  id: number;
  state: ImportState;
  format: ImportFormat;
  create_categories: number | boolean;
  failure: string | null;
  row_count: number;
  invalid_count: number;
  created_count: number;
  updated_count: number;
  unchanged_count: number;
  refused_count: number;
  created_at: string;
  updated_at: string;
}

interface RowRecord {
  line: number;
  outcome: RowOutcome;
  pet_id: number | null;
  category: string | null;
  data: string | null;
  field: string | null;
  code: string | null;
  message: string | null;
}

const toImport = (r: ImportRowRecord): ImportRecord => ({
  id: r.id,
  state: r.state,
  format: r.format,
  createCategories: Boolean(r.create_categories),
  ...(r.failure === null ? {} : { failure: r.failure }),
  counts: {
    rows: r.row_count,
    invalid: r.invalid_count,
    created: r.created_count,
    updated: r.updated_count,
    unchanged: r.unchanged_count,
    refused: r.refused_count,
  },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toRow = (r: RowRecord): ImportRow => ({
  line: r.line,
  outcome: r.outcome,
  ...(r.pet_id === null ? {} : { petId: r.pet_id }),
  ...(r.category === null ? {} : { category: r.category }),
  ...(r.data === null ? {} : { data: JSON.parse(r.data) as Record<string, unknown> }),
  ...(r.code === null ? {} : { error: { field: r.field ?? '', code: r.code, message: r.message ?? '' } }),
});

const GET = `SELECT ${COLUMNS} FROM imports WHERE id = $1`;
const LOCK = perDialect((d) => `${GET} ${d.lock('FOR UPDATE')}`);
const COUNT_ROWS = 'SELECT outcome, COUNT(*) AS n FROM import_rows WHERE import_id = $1 GROUP BY outcome';
// NULL leaves a count as it is.
const ADD_COUNTS = `UPDATE imports SET ${COUNT_COLUMNS.map((c, i) => `${c} = ${c} + COALESCE($${i + 2}, 0)`).join(', ')} WHERE id = $1`;
const SET_COUNTS = `UPDATE imports SET ${COUNT_COLUMNS.map((c, i) => `${c} = COALESCE($${i + 2}, ${c})`).join(', ')} WHERE id = $1`;
const countParams = (id: number, counts: Partial<ImportCounts>): SqlParam[] => [id, ...COUNTS.map((k) => counts[k] ?? null)];
const REFUSALS = `SELECT ${ROW_COLUMNS} FROM import_rows WHERE import_id = $1 AND outcome IN ('invalid', 'refused') ORDER BY line LIMIT $2`;
const PENDING = `SELECT ${ROW_COLUMNS} FROM import_rows WHERE import_id = $1 AND outcome = 'pending' AND line > $2 ORDER BY line LIMIT $3`;
const CATEGORY_NAMES = "SELECT DISTINCT category FROM import_rows WHERE import_id = $1 AND outcome = 'pending' AND category IS NOT NULL";
const APPLYING = "SELECT id FROM imports WHERE state = 'applying' ORDER BY id";
const CHIP_HOLDERS = perDialect((d) => `SELECT microchip, id FROM pets WHERE ${LIVE} AND microchip ${d.anyOf('$1', 'TEXT')}`);
const INSERT = `INSERT INTO imports (state, format, create_categories, created_at, updated_at) VALUES ('validating', $1, $2, $3, $3) RETURNING ${COLUMNS}`;
const ADD_ROW = `INSERT INTO import_rows (import_id, ${ROW_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;
const SET_STATE = 'UPDATE imports SET state = $2, updated_at = $3, failure = COALESCE($4, failure) WHERE id = $1';
const TAKE_ROW = perDialect((d) => `SELECT line FROM import_rows WHERE import_id = $1 AND line = $2 AND outcome = 'pending' ${d.lock('FOR UPDATE')}`);
const SETTLE_ROW = 'UPDATE import_rows SET outcome = $3, pet_id = COALESCE($4, pet_id), field = $5, code = $6, message = $7 WHERE import_id = $1 AND line = $2';

export class SqlImports implements ImportRepository {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async get(id: number): Promise<ImportRecord | undefined> {
    const row = await first<ImportRowRecord>(this.#db, GET, [id]);
    return row && toImport(row);
  }

  async counts(id: number): Promise<Partial<Record<RowOutcome, number>>> {
    const rows = await this.#db.all<{ outcome: RowOutcome; n: number | string }>(COUNT_ROWS, [id]);
    return Object.fromEntries(rows.map((r) => [r.outcome, Number(r.n)]));
  }

  async refusals(id: number, limit: number): Promise<ImportRow[]> {
    return (await this.#db.all<RowRecord>(REFUSALS, [id, limit])).map(toRow);
  }

  async pending(id: number, afterLine: number, limit: number): Promise<ImportRow[]> {
    return (await this.#db.all<RowRecord>(PENDING, [id, afterLine, limit])).map(toRow);
  }

  async categoryNames(id: number): Promise<string[]> {
    return (await this.#db.all<{ category: string }>(CATEGORY_NAMES, [id])).map((r) => r.category);
  }

  async applying(): Promise<number[]> {
    return (await this.#db.all<{ id: number }>(APPLYING)).map((r) => r.id);
  }

  async microchipHolders(chips: readonly string[]): Promise<Map<string, number>> {
    if (chips.length === 0) return new Map();
    const rows = await this.#db.all<{ microchip: string; id: number }>(CHIP_HOLDERS(this.#d), [chips]);
    return new Map(rows.map((r) => [r.microchip, r.id]));
  }
}

export class SqlImportTx implements ImportTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async create(format: ImportFormat, createCategories: boolean, at: Date): Promise<ImportRecord> {
    // 1 or 0: SQLite keeps booleans as integers, and PostgreSQL reads '1' and '0' as booleans.
    return toImport((await first<ImportRowRecord>(this.#db, INSERT, [format, createCategories ? 1 : 0, at.toISOString()]))!);
  }

  async addRows(id: number, rows: readonly ImportRow[]): Promise<void> {
    for (const r of rows) {
      const params: SqlParam[] = [
        id,
        r.line,
        r.outcome,
        r.petId ?? null,
        r.category ?? null,
        r.data === undefined ? null : JSON.stringify(r.data),
        r.error?.field ?? null,
        r.error?.code ?? null,
        r.error?.message ?? null,
      ];
      await this.#db.run(ADD_ROW, params);
    }
  }

  async lock(id: number): Promise<ImportRecord | undefined> {
    const row = await first<ImportRowRecord>(this.#db, LOCK(this.#d), [id]);
    return row && toImport(row);
  }

  async setState(id: number, state: ImportState, at: Date, failure?: string): Promise<void> {
    await this.#db.run(SET_STATE, [id, state, at.toISOString(), failure ?? null]);
  }

  async addCounts(id: number, add: Partial<ImportCounts>): Promise<void> {
    await this.#db.run(ADD_COUNTS, countParams(id, add));
  }

  async setCounts(id: number, counts: Partial<ImportCounts>): Promise<void> {
    await this.#db.run(SET_COUNTS, countParams(id, counts));
  }

  async takeRow(id: number, line: number): Promise<boolean> {
    return (await first(this.#db, TAKE_ROW(this.#d), [id, line])) !== undefined;
  }

  async settleRow(id: number, line: number, outcome: RowOutcome, petId: number | undefined, error?: RowError): Promise<void> {
    await this.#db.run(SETTLE_ROW, [id, line, outcome, petId ?? null, error?.field ?? null, error?.code ?? null, error?.message ?? null]);
  }
}
