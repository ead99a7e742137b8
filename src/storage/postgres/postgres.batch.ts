/**
 * Point lookups by key, batched: the lookups asked for in the same turn of the event loop go to
 * PostgreSQL as one query (`… WHERE key = ANY($1)`), one round trip instead of one each. Under
 * load the service asks for the same few rows — the API keys in use, hot pets — from many
 * requests at once, and each round trip costs the pool a connection and the server a statement.
 *
 * Freshness is a query's: each lookup is sent after it was asked for, so it sees every commit
 * that finished before its request arrived (a revoked key is refused from the next request on).
 * A failed query fails every lookup of its batch, as it would have failed each. An idle service
 * adds one setImmediate to a lookup; batches are cut at `max` keys.
 */
export class BatchedLookup<K, V> {
  readonly #load: (keys: K[]) => Promise<Map<K, V>>;
  readonly #max: number;
  #waiting = new Map<K, { resolve: (v: V | undefined) => void; reject: (err: unknown) => void }[]>();
  #scheduled = false;

  /** `load` answers a batch of distinct keys with the rows it found, by key (missing: absent). */
  constructor(load: (keys: K[]) => Promise<Map<K, V>>, max = 500) {
    this.#load = load;
    this.#max = max;
  }

  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.#waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.#waiting.set(key, [{ resolve, reject }]);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#flush);
      }
    });
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const all = this.#waiting;
    this.#waiting = new Map();
    const keys = [...all.keys()];
    for (let i = 0; i < keys.length; i += this.#max) {
      const part = keys.slice(i, i + this.#max);
      this.#load(part).then(
        (found) => {
          for (const k of part) for (const w of all.get(k)!) w.resolve(found.get(k));
        },
        (err: unknown) => {
          for (const k of part) for (const w of all.get(k)!) w.reject(err);
        },
      );
    }
  };
}
