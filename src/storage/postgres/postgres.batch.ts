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

/**
 * Single-row writes, batched like the lookups: the calls of one loop turn run as one statement
 * (one round trip, one commit) through `many`, which answers the inputs in their order. When that
 * statement fails with an error that proves nothing was written (`retryAlone`, e.g. a foreign-key
 * violation by one input), each input runs alone through `one`, so one bad input never fails its
 * neighbours; any other failure fails every call of the batch (nothing is retried that might have
 * been committed). A call resolves only after the statement with its row committed.
 */
export class BatchedWrite<I, O> {
  readonly #many: (inputs: I[]) => Promise<O[]>;
  readonly #one: (input: I) => Promise<O>;
  readonly #retryAlone: (err: unknown) => boolean;
  readonly #max: number;
  #queue: { input: I; resolve: (o: O) => void; reject: (err: unknown) => void }[] = [];

  constructor(options: { many: (inputs: I[]) => Promise<O[]>; one: (input: I) => Promise<O>; retryAlone: (err: unknown) => boolean; max?: number }) {
    this.#many = options.many;
    this.#one = options.one;
    this.#retryAlone = options.retryAlone;
    this.#max = options.max ?? 500;
  }

  call(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      if (this.#queue.length === 1) setImmediate(this.#flush);
    });
  }

  readonly #flush = (): void => {
    const queue = this.#queue;
    this.#queue = [];
    for (let i = 0; i < queue.length; i += this.#max) {
      const part = queue.slice(i, i + this.#max);
      const alone = () => {
        for (const c of part) this.#one(c.input).then(c.resolve, c.reject);
      };
      if (part.length === 1) {
        alone();
        continue;
      }
      this.#many(part.map((c) => c.input)).then(
        (outputs) => {
          for (const [j, c] of part.entries()) c.resolve(outputs[j]);
        },
        (err: unknown) => {
          if (this.#retryAlone(err)) alone();
          else for (const c of part) c.reject(err);
        },
      );
    }
  };
}
