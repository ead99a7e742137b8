import type { DatabaseSync } from 'node:sqlite';

interface Job {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * The SQLite engine's one write path. Writes that arrive in the same turn of the event loop run
 * in one IMMEDIATE transaction, so they share one COMMIT and, with synchronous=FULL, one WAL
 * fsync (node:sqlite is synchronous: a commit per write would stall the whole process on the
 * disk once per write). Each write runs inside its own SAVEPOINT, so a write that throws (a
 * refused order, a constraint) is undone alone and the others still commit. Nothing is
 * acknowledged early: a caller's promise settles only after the COMMIT containing its write.
 * Under load the batches size themselves; an idle server adds one setImmediate.
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
        db.exec('SAVEPOINT write');
        const value = job.work();
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
