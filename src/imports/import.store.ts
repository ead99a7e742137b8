// The imports' storage (storage/sql/sql.imports.ts): the job, and its rows as validated at upload.
import type { ImportFormat, ImportState, RowOutcome } from './import.schemas.ts';

/** What an import's rows came to: rows read, refused at validation, and what applying did. */
export interface ImportCounts {
  readonly rows: number;
  readonly invalid: number;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly refused: number;
}

/** An import job as stored, with its counts (kept with it: ImportTx.addCounts, setCounts). */
export interface ImportRecord {
  readonly id: number;
  readonly state: ImportState;
  readonly format: ImportFormat;
  readonly createCategories: boolean;
  /** Why the upload failed (state failed). */
  readonly failure?: string;
  readonly counts: ImportCounts;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Why a row was refused: the column, and the error the API answers for the same value. */
export interface RowError {
  readonly field: string;
  readonly code: string;
  readonly message: string;
}

/** One row of an import: its line, what became of it, and what it asks for. */
export interface ImportRow {
  readonly line: number;
  readonly outcome: RowOutcome;
  /** The animal it updates (from its `id` or microchip) or, once applied, the one it created. */
  readonly petId?: number;
  /** The category by name, resolved when applied. */
  readonly category?: string;
  /** A NewPet (creates) or PetPatch (updates) without its category, as validated. */
  readonly data?: Record<string, unknown>;
  readonly error?: RowError;
}

export interface ImportRepository {
  get(id: number): Promise<ImportRecord | undefined>;
  /** How many of its rows have each outcome, counted from the rows (ImportTx.setCounts brings the job's counts to it). */
  counts(id: number): Promise<Partial<Record<RowOutcome, number>>>;
  /** Its refused rows (invalid at upload, refused when applied), by line, at most `limit`. */
  refusals(id: number, limit: number): Promise<ImportRow[]>;
  /** Its rows not applied yet, by line, after `afterLine`, at most `limit`. */
  pending(id: number, afterLine: number, limit: number): Promise<ImportRow[]>;
  /** The category names its pending rows give, each once. */
  categoryNames(id: number): Promise<string[]>;
  /** The imports left applying (a process stopped during apply). */
  applying(): Promise<number[]>;
  /** The live animals with these microchip numbers (normalised): number → id. */
  microchipHolders(chips: readonly string[]): Promise<Map<string, number>>;
}

export interface ImportTx {
  create(format: ImportFormat, createCategories: boolean, at: Date): Promise<ImportRecord>;
  /** Appends validated rows. */
  addRows(id: number, rows: readonly ImportRow[]): Promise<void>;
  /** The import, locked FOR UPDATE. */
  lock(id: number): Promise<ImportRecord | undefined>;
  /** Sets its state (and why it failed). */
  setState(id: number, state: ImportState, at: Date, failure?: string): Promise<void>;
  /** Locks the row while it is pending (FOR UPDATE): false when another transaction applied it. */
  takeRow(id: number, line: number): Promise<boolean>;
  /** Adds to the job's counts. */
  addCounts(id: number, add: Partial<ImportCounts>): Promise<void>;
  /** Sets the job's counts given. */
  setCounts(id: number, counts: Partial<ImportCounts>): Promise<void>;
  /** Records what applying the row did. */
  settleRow(id: number, line: number, outcome: RowOutcome, petId: number | undefined, error?: RowError): Promise<void>;
}
