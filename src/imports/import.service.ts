// Imports (docs/api.md, "Imports"): a file of animals read as it streams in, every row validated
// by the API's own rules and stored, nothing written to the animals; then, when asked, applied in
// the background, each row in the transaction that writes its animal (createPet's and updatePet's
// workflows, with their events), so that a crash loses no row and applies none twice.
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { createCategory } from '../categories/category.service.ts';
import type { Clock } from '../clock.ts';
import { AppError, assertFound, notFound } from '../errors.ts';
import { onlyActivity, withoutEvents, write } from '../events/event.outbox.ts';
import { checkRecord, type RecordRule } from '../pets/pet.record.ts';
import type { NewPet, Pet, PetPatch } from '../pets/pet.schemas.ts';
import { changePet, insertPet, newPetRecord } from '../pets/pet.service.ts';
import type { Storage } from '../storage/storage.ts';
import { readRows, type ReadRow, UnreadableFile, utf8 } from './import.read.ts';
import { type BodyCheck, planRow, type RowFacts, type RowRules, rowError, rowKeys, toRefusal } from './import.rows.ts';
import { type ImportFormat, type ImportJob, REPORT_MAX } from './import.schemas.ts';
import type { ImportRecord, ImportRow } from './import.store.ts';
import type { CsvColumns } from './import.csv.ts';

export interface ImportSettings {
  readonly currency: string;
  readonly record: RecordRule;
  readonly newPet: BodyCheck;
  readonly petPatch: BodyCheck;
  /** Rows applied together (then other work runs); tests make it small. */
  readonly applyBatch?: number;
}

/** The upload grew past IMPORT_MAX_BYTES: thrown by the byte stream the route hands over. */
export class TooLarge extends Error {}

// Rows validated together: one read of their animals, one transaction storing them.
const VALIDATE_BATCH = 500;
// Rows applied together: on SQLite one commit (one fsync), during which reads wait. Fewer rows
// shorten the wait and add commits: the trade-off measured in docs/performance.md, "Imports".
const APPLY_BATCH = 100;

export class ImportService {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #settings: ImportSettings;
  readonly #applyBatch: number;
  readonly #csv: CsvColumns;
  /** The applies running in this process, by import. */
  readonly #running = new Map<number, Promise<void>>();
  #stopping = false;
  readonly #onError: (err: unknown, importId: number) => void;

  constructor(storage: Storage, clock: Clock, settings: ImportSettings, csv: CsvColumns, onError: (err: unknown, importId: number) => void) {
    this.#storage = storage;
    this.#clock = clock;
    this.#settings = settings;
    this.#applyBatch = settings.applyBatch ?? APPLY_BATCH;
    this.#csv = csv;
    this.#onError = onError;
  }

  /**
   * Reads the file, validates and stores every row: the job ends `ready` (or `failed` when the file
   * cannot be read; TooLarge is thrown on after the job is marked failed).
   */
  async upload(format: ImportFormat, bytes: AsyncIterable<Uint8Array>, options: { createCategories: boolean; reveal: boolean }): Promise<ImportJob> {
    const now = this.#clock.now();
    const { id } = await write(this.#storage, { now }, async (tx) => {
      const created = await tx.imports.create(format, options.createCategories, now);
      return onlyActivity(created, 'import.created', `import:${created.id}`);
    });
    try {
      await this.#validate(id, readRows(format, utf8(bytes)), format, options);
      await this.#storage.transaction((tx) => tx.imports.setState(id, 'ready', this.#clock.now()));
    } catch (err) {
      const readable = err instanceof UnreadableFile || err instanceof TooLarge;
      // Anything else (the client went away mid-upload, the database failed) fails the job too: it is never applied.
      const failure =
        err instanceof TooLarge ? err.message : readable ? `the file cannot be read: ${err.message}` : 'the upload stopped before the end of the file';
      await this.#storage.transaction((tx) => tx.imports.setState(id, 'failed', this.#clock.now(), failure)).catch(() => undefined);
      if (err instanceof TooLarge) throw new AppError('payload_too_large', `import ${id} failed: ${failure}`);
      if (!readable) throw err;
    }
    return (await this.get(id))!;
  }

  async #validate(id: number, rows: AsyncIterable<ReadRow>, format: ImportFormat, options: { createCategories: boolean; reveal: boolean }): Promise<void> {
    const rules: RowRules = {
      ...this.#settings,
      now: this.#clock.now(),
      categories: new Map((await this.#storage.categories.list()).map((c) => [c.name.toLowerCase(), c.id])),
      createCategories: options.createCategories,
      reveal: options.reveal,
    };
    const seen: Seen = { targets: new Map(), chips: new Map() };
    let header: ReturnType<CsvColumns['header']> | undefined;
    let batch: ReadRow[] = [];
    const flush = async () => {
      const planned = await this.#plan(batch, rules, seen);
      batch = [];
      const invalid = planned.filter((row) => row.outcome === 'invalid').length;
      await this.#storage.transaction(async (tx) => {
        await tx.imports.addRows(id, planned);
        await tx.imports.addCounts(id, { rows: planned.length, invalid });
      });
    };
    for await (const row of rows) {
      if (format === 'csv' && header === undefined && 'cells' in row) {
        header = this.#csv.header(row.cells);
        continue;
      }
      batch.push(header !== undefined && 'cells' in row ? header.row(row.line, row.cells) : row);
      if (batch.length >= VALIDATE_BATCH) await flush();
    }
    if (format === 'csv' && header === undefined) throw new UnreadableFile('the file has no header row');
    if (batch.length > 0) await flush();
  }

  /** A batch of rows planned: what the database says of their animals read together, then each row in file order. */
  async #plan(rows: readonly ReadRow[], rules: RowRules, seen: Seen): Promise<ImportRow[]> {
    const keys = rows.map((row) => ('input' in row ? rowKeys(row.input) : {}));
    const holders = await this.#storage.imports.microchipHolders([...new Set(keys.flatMap((k) => (k.chip ? [k.chip] : [])))]);
    const ids = new Set([...keys.flatMap((k) => (k.id ? [k.id] : [])), ...holders.values()]);
    const pets = new Map<number, Pet>();
    for (const pet of await Promise.all([...ids].map((petId) => this.#storage.pets.get(petId)))) if (pet) pets.set(pet.id, pet);
    return rows.map((row, i): ImportRow => {
      if ('problem' in row) return { line: row.line, outcome: 'invalid', error: rowError(row.problem, undefined) };
      if (!('input' in row)) throw new Error('a CSV record reaches planning decoded');
      const { id, chip } = keys[i];
      const byId = id === undefined ? undefined : pets.get(id);
      const holderId = chip === undefined ? undefined : holders.get(chip);
      const chipHolder = holderId === undefined ? undefined : pets.get(holderId);
      const target = id ?? chipHolder?.id;
      const facts: RowFacts = {
        byId,
        chipHolder,
        sameTargetAt: target === undefined ? undefined : seen.targets.get(target),
        sameChipAt: chip === undefined ? undefined : seen.chips.get(chip),
      };
      const planned = planRow(row.line, row.input, facts, rules);
      if (planned.outcome === 'pending') {
        if (target !== undefined) seen.targets.set(target, row.line);
        if (chip !== undefined) seen.chips.set(chip, row.line);
      }
      return planned;
    });
  }

  async get(id: number): Promise<ImportJob | undefined> {
    const record = await this.#storage.imports.get(id);
    return record && this.#view(record);
  }

  async #view(record: ImportRecord): Promise<ImportJob> {
    const refusals = await this.#storage.imports.refusals(record.id, REPORT_MAX);
    const { rows, invalid, created, updated, unchanged, refused } = record.counts;
    return {
      id: record.id,
      state: record.state,
      format: record.format,
      createCategories: record.createCategories,
      rows,
      valid: rows - invalid,
      invalid,
      created,
      updated,
      unchanged,
      refused,
      report: refusals.map(toRefusal),
      ...(record.failure === undefined ? {} : { failure: record.failure }),
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  }

  /** The categories a ready import would create when applied (names its rows give that no live category has). */
  async newCategories(id: number): Promise<string[]> {
    const live = new Set((await this.#storage.categories.list()).map((c) => c.name.toLowerCase()));
    return (await this.#storage.imports.categoryNames(id)).filter((name) => !live.has(name.toLowerCase()));
  }

  /**
   * Starts applying a ready import, or resumes one left applying (a process stopped during it): the
   * job answers `applying` at once and the rows are applied in the background. A done import is
   * left as it is: applying twice changes nothing. Refused (409) while validating or failed.
   */
  async apply(id: number, reveal: boolean): Promise<ImportJob> {
    const now = this.#clock.now();
    const record = await write(this.#storage, { now }, async (tx) => {
      const current = await tx.imports.lock(id);
      assertFound(`import ${id}`, current);
      if (current.state === 'validating' || current.state === 'failed') {
        throw new AppError('invalid_transition', `import ${id} is ${current.state}: only a ready import is applied`);
      }
      if (current.state !== 'ready') return withoutEvents(current);
      await tx.imports.setState(id, 'applying', now);
      return onlyActivity(current, 'import.applied', `import:${id}`);
    });
    if (record.state !== 'done') this.#start(id, reveal);
    const job = await this.get(id);
    if (job === undefined) throw notFound(`import ${id}`);
    return job;
  }

  /** Resumes the imports left applying when a process stopped (at start-up). */
  async resume(): Promise<void> {
    for (const id of await this.#storage.imports.applying()) this.#start(id, false);
  }

  /** Stops applying (the app closes): the batch under way finishes, the rest waits for the next start. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(this.#running.values());
  }

  /** The apply of `id` running in this process, started if it is not. */
  running(id: number): Promise<void> | undefined {
    return this.#running.get(id);
  }

  #start(id: number, reveal: boolean): void {
    if (this.#running.has(id) || this.#stopping) return;
    const run = this.#run(id, reveal)
      .catch((err) => this.#onError(err, id))
      .finally(() => this.#running.delete(id));
    this.#running.set(id, run);
  }

  async #run(id: number, reveal: boolean): Promise<void> {
    const now = this.#clock.now();
    for (const name of await this.newCategories(id)) {
      try {
        await createCategory(this.#storage, name, { now });
      } catch (err) {
        // Created meanwhile, by another instance applying the same import or a client: it is there.
        if (!(err instanceof AppError && err.code === 'category_exists')) throw err;
      }
    }
    const categories = new Map((await this.#storage.categories.list()).map((c) => [c.name.toLowerCase(), c.id]));
    // A run that stopped (a crash) may have applied rows it did not count: counted again from the rows.
    await this.#recount(id);
    for (let after = 0; !this.#stopping; ) {
      const rows = await this.#storage.imports.pending(id, after, this.#applyBatch);
      if (rows.length === 0) {
        await this.#recount(id, 'done');
        return;
      }
      // One batch at once (SQLite commits it as one transaction); then the requests waiting run.
      const outcomes = await Promise.all(rows.map((row) => this.#applyRow(id, row, categories, reveal)));
      const add = { created: 0, updated: 0, unchanged: 0, refused: 0 };
      for (const outcome of outcomes) if (outcome !== undefined) add[outcome]++;
      await this.#storage.transaction((tx) => tx.imports.addCounts(id, add));
      after = rows.at(-1)!.line;
      await yieldToOthers();
    }
  }

  /** Sets the job's counts of applied rows from the rows themselves (and its state, when given). */
  async #recount(id: number, state?: 'done'): Promise<void> {
    const counts = await this.#storage.imports.counts(id);
    const applied = { created: counts.created ?? 0, updated: counts.updated ?? 0, unchanged: counts.unchanged ?? 0, refused: counts.refused ?? 0 };
    await this.#storage.transaction(async (tx) => {
      await tx.imports.setCounts(id, applied);
      if (state !== undefined) await tx.imports.setState(id, state, this.#clock.now());
    });
  }

  /** Applies one row in the transaction that writes its animal, with that write's events; a refusal is recorded on the row. */
  async #applyRow(id: number, row: ImportRow, categories: ReadonlyMap<string, number>, reveal: boolean): Promise<Applied | undefined> {
    const { currency, record } = this.#settings;
    const now = this.#clock.now();
    const data: Record<string, unknown> = { ...row.data };
    let outcome: Applied | undefined;
    try {
      await write(this.#storage, { now }, async (tx) => {
        if (!(await tx.imports.takeRow(id, row.line))) return withoutEvents(undefined);
        if (row.category !== undefined) {
          const categoryId = categories.get(row.category.toLowerCase());
          if (categoryId === undefined) throw new AppError('unknown_category', `no live category is named ${JSON.stringify(row.category)}`);
          data.categoryId = categoryId;
        }
        if (row.petId !== undefined) {
          const change = await changePet(tx, row.petId, data as PetPatch, currency, { now }, record, reveal);
          outcome = change.events.length > 0 ? 'updated' : 'unchanged';
          await tx.imports.settleRow(id, row.line, outcome, row.petId);
          return change;
        }
        const input = newPetRecord(data as NewPet, currency, record);
        checkRecord(input, now);
        const change = await insertPet(tx, input, now, reveal);
        outcome = 'created';
        await tx.imports.settleRow(id, row.line, outcome, change.result.id);
        return change;
      });
      return outcome;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return this.#storage.transaction(async (tx) => {
        if (!(await tx.imports.takeRow(id, row.line))) return undefined;
        await tx.imports.settleRow(id, row.line, 'refused', undefined, rowError(err, undefined));
        return 'refused' as const;
      });
    }
  }
}

/** What applying a row did. */
type Applied = 'created' | 'updated' | 'unchanged' | 'refused';

interface Seen {
  /** The line of the row that changes each animal. */
  readonly targets: Map<number, number>;
  /** The line of the row that gives each microchip number. */
  readonly chips: Map<string, number>;
}
