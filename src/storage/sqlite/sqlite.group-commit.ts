import type { DatabaseSync } from 'node:sqlite';

interface Job {
  readonly work: () => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * The SQLite engine's one connection, shared by writes and reads.
 *
 * Writes: the workflows that arrive in the same turn of the event loop run in one IMMEDIATE
 * transaction, so they share one COMMIT and, with synchronous=FULL, one WAL fsync (node:sqlite is
 * synchronous: a commit per write would stall the whole process on the disk once per write). They
 * run one after the other, each awaited before the next starts and each inside its own SAVEPOINT,
 * so no two interleave between their reads and their writes, and a workflow that throws (a
 * refused order, a constraint) is undone alone while the others still commit. Nothing is
 * acknowledged early: a caller's promise settles only after the COMMIT containing its write.
 * Under load the batches size themselves; an idle server adds one setImmediate.
 *
 * Reads: a workflow awaits between its statements, and other code runs meanwhile — on this same
 * connection, inside the open transaction. A read there would see rows not yet committed (and
 * perhaps about to be rolled back), and a read cache could keep them. So everything else waits
 * for the open batch to end (outside()): a read sees committed rows only.
 */
export class GroupCommit {
  readonly #db: DatabaseSync;
  #queue: Job[] = [];
  #scheduled = false;
  /** Set while a batch's transaction is open; resolves when it has ended. */
  #open: PromiseWithResolvers<void> | undefined;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  /** Runs `read` on the connection once no batch is open: it then sees committed rows only. */
  async outside<T>(read: () => T): Promise<T> {
    while (this.#open) await this.#open.promise;
    return read();
  }

  #schedule(): void {
    if (this.#scheduled || this.#open) return;
    this.#scheduled = true;
    setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    let batch = this.#queue;
    this.#queue = [];
    this.#open = Promise.withResolvers();
    try {
      while (batch.length > 0) batch = await this.#commit(batch);
    } finally {
      const open = this.#open;
      this.#open = undefined;
      open.resolve();
      // Workflows queued while this batch ran go in the next one, after the reads waiting for this one.
      if (this.#queue.length > 0) this.#schedule();
    }
  }

  /** Commits what it can of `batch`; returns the jobs still to run (after a lost transaction). */
  async #commit(batch: Job[]): Promise<Job[]> {
    const db = this.#db;
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      for (const job of batch) job.reject(err);
      return [];
    }
    const done: { job: Job; ok: boolean; value: unknown }[] = [];
    for (let i = 0; i < batch.length; i++) {
      const job = batch[i];
      try {
        db.exec('SAVEPOINT write');
        const value = await job.work();
        db.exec('RELEASE write');
        done.push({ job, ok: true, value });
      } catch (err) {
        if (!db.isTransaction) {
          // Some errors (disk full, I/O) make SQLite roll the whole transaction back: the writes
          // before this one are gone, so they fail with it; the rest get a fresh transaction.
          job.reject(err);
          for (const d of done) d.job.reject(d.ok ? err : d.value);
          return batch.slice(i + 1);
        }
        db.exec('ROLLBACK TO write');
        db.exec('RELEASE write');
        done.push({ job, ok: false, value: err });
      }
    }
    try {
      db.exec('COMMIT');
    } catch (err) {
      if (db.isTransaction) db.exec('ROLLBACK');
      for (const d of done) d.job.reject(d.ok ? err : d.value);
      return [];
    }
    for (const d of done) (d.ok ? d.job.resolve : d.job.reject)(d.value);
    return [];
  }
}
