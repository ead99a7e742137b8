import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { DatabaseSync, StatementSync } from 'node:sqlite';

const REQUEST_START = 'http.server.request.start';

/**
 * Tells read caches whether the database may have changed, as cheaply as correctness allows.
 *
 * - This connection's own writes: `total_changes()` counts every row it inserted, updated or
 *   deleted. The statement reads no table, so SQLite takes no lock for it: asked on every lookup.
 * - Other connections' commits (the `petstore` CLI revoking a key, another process on the file):
 *   `PRAGMA data_version` moves when one committed. It opens a read transaction — a shared lock,
 *   system calls in WAL mode, as costly as a small query — so its answer is reused until the next
 *   HTTP request arrives (Node's `http.server.request.start` diagnostics channel) or the event
 *   loop turns, whichever comes first. A request's reads therefore all follow a check made after
 *   it arrived: it sees every commit that finished before it arrived, and its authentication and
 *   its read share one check instead of paying one each (docs/performance.md).
 */
export class DatabaseChanges {
  readonly #own: StatementSync;
  readonly #others: StatementSync;
  #version = 0;
  #fresh = false;
  readonly #expire = () => {
    this.#fresh = false;
  };

  constructor(db: DatabaseSync) {
    this.#own = db.prepare('SELECT total_changes()');
    this.#own.setReturnArrays(true);
    this.#others = db.prepare('PRAGMA data_version');
    this.#others.setReturnArrays(true);
    subscribe(REQUEST_START, this.#expire);
  }

  /** Stops listening for requests (the database is being closed). */
  close(): void {
    unsubscribe(REQUEST_START, this.#expire);
  }

  /** Rows this connection has changed since it opened. */
  ownChanges(): number {
    return (this.#own.get() as unknown as [number])[0];
  }

  /** Moves whenever another connection committed (see the class comment for when it is asked). */
  othersVersion(): number {
    if (!this.#fresh) {
      this.#version = (this.#others.get() as unknown as [number])[0];
      this.#fresh = true;
      setImmediate(this.#expire);
    }
    return this.#version;
  }
}

/**
 * Memoises read results until the database changes (DatabaseChanges): a cached answer is never
 * older than the last commit any process made before the request that asks arrived — the same
 * freshness a query gives, without the query. Bounded: when full it starts over.
 */
export class ReadCache<V> {
  readonly #changes: DatabaseChanges;
  readonly #max: number;
  readonly #entries = new Map<string | number, V>();
  #own = -1;
  #others = -1;

  constructor(changes: DatabaseChanges, max: number) {
    this.#changes = changes;
    this.#max = max;
  }

  /** The cached value for key, or compute()'s, remembered unless it is undefined. */
  get(key: string | number, compute: () => V | undefined): V | undefined {
    const own = this.#changes.ownChanges();
    const others = this.#changes.othersVersion();
    if (own !== this.#own || others !== this.#others) {
      this.#entries.clear();
      this.#own = own;
      this.#others = others;
    }
    let value = this.#entries.get(key);
    if (value === undefined) {
      value = compute();
      if (value === undefined) return undefined;
      if (this.#entries.size >= this.#max) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value;
  }
}
