import type { DatabaseSync } from 'node:sqlite';

interface Job {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Group commit: single-statement writes that arrive in the same turn of the event loop run in one
 * IMMEDIATE transaction, so they share one COMMIT and, with synchronous=FULL, one WAL fsync
 * instead of paying one each. Nothing is acknowledged early: a caller's promise settles only after
 * the COMMIT containing its write returned. Under load the batches size themselves — while one
 * commit waits for the disk, the next requests gather — and an idle server adds one setImmediate.
 *
 * Each job must be one statement: a statement that fails (a constraint) is undone by SQLite on
 * its own and the others still commit, so one bad request never fails its neighbours.
 */
export class GroupCommit {
  readonly #db: DatabaseSync;
  #queue: Job[] = [];
  #scheduled = false;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    let batch = this.#queue;
    this.#queue = [];
    while (batch.length > 0) batch = this.#commit(batch);
  }

  /** Commits what it can of `batch`; returns the jobs still to run (after a lost transaction). */
  #commit(batch: Job[]): Job[] {
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
        done.push({ job, ok: true, value: job.work() });
      } catch (err) {
        if (!db.isTransaction) {
          // Some errors (disk full, I/O) make SQLite roll the whole transaction back: the writes
          // before this one are gone, so they fail with it; the rest get a fresh transaction.
          job.reject(err);
          for (const d of done) d.job.reject(d.ok ? err : d.value);
          return batch.slice(i + 1);
        }
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
