import type { CounterStats, CounterStore } from './counter-store.ts';

/** Entries the in-memory store keeps per window (docs/operations.md, "Rate limits"). */
export const MEMORY_COUNTER_CAPACITY = 100_000;

/**
 * Per-instance counts: one Map for the current window, dropped whole when the window ends.
 *
 * With a `capacity` (the failed-authentication limit, counted per client address) it never holds
 * more than that many keys: a client that can vary its address (IPv6 gives it many) could
 * otherwise grow the map without bound within a window. When it is full, a new key evicts one of
 * the least-counted keys (the earliest to reach that count): evicting a key that has counted c
 * hits takes filling the whole store with keys of at least c hits first, so an address cannot
 * cheaply flush its own count. Counts are kept up to `ceiling` (the limit + 1: how far past the
 * limit a key went does not matter). Without a capacity (the per-key limit, whose keys are the
 * service's own API keys) there is nothing to evict and no bookkeeping for it on the request path.
 */
export class MemoryCounterStore implements CounterStore {
  readonly #capacity: number;
  readonly #ceiling: number;
  #windowStart = -1;
  #counts = new Map<string, number>();
  // With a capacity: keys by count, each in the order they reached it (an empty bucket is
  // dropped); #lowest ≤ the least count.
  #byCount = new Map<number, Set<string>>();
  #lowest = 1;
  // A live iterator over the #lowest bucket: evictions walk it from where the last one stopped,
  // instead of from the start of the Set, past the slots of everything deleted before.
  #victims: Iterator<string> | undefined;
  #victimsCount = 0;
  #evicted = 0;

  constructor({ ceiling, capacity = Number.POSITIVE_INFINITY }: { ceiling: number; capacity?: number }) {
    this.#ceiling = ceiling;
    this.#capacity = capacity;
  }

  /** Keys counted in the current window, and keys evicted since start (metrics). */
  get stats(): CounterStats {
    return { size: this.#counts.size, evicted: this.#evicted };
  }

  clear(): void {
    this.#windowStart = -1;
    this.#counts = new Map();
    this.#byCount = new Map();
    this.#lowest = 1;
    this.#victims = undefined;
    this.#victimsCount = 0;
    this.#evicted = 0;
  }

  async increment(key: string, windowStart: number, _windowMs?: number, by = 1): Promise<number> {
    if (windowStart !== this.#windowStart) {
      this.#windowStart = windowStart;
      this.#counts = new Map();
      this.#byCount = new Map();
      this.#victims = undefined;
    }
    const bounded = this.#capacity !== Number.POSITIVE_INFINITY;
    const count = this.#counts.get(key);
    if (count === undefined) {
      if (this.#counts.size >= this.#capacity) this.#evictOne();
      const first = Math.min(by, this.#ceiling);
      this.#counts.set(key, first);
      if (bounded) {
        this.#bucket(first).add(key);
        this.#lowest = Math.min(this.#lowest, first);
      }
      return first;
    }
    if (count >= this.#ceiling || by === 0) return count;
    const next = Math.min(count + by, this.#ceiling);
    this.#counts.set(key, next);
    if (bounded) {
      const from = this.#byCount.get(count)!;
      from.delete(key);
      if (from.size === 0) this.#byCount.delete(count);
      this.#bucket(next).add(key);
    }
    return next;
  }

  #bucket(count: number): Set<string> {
    let bucket = this.#byCount.get(count);
    if (bucket === undefined) {
      bucket = new Set();
      this.#byCount.set(count, bucket);
    }
    return bucket;
  }

  #evictOne(): void {
    while (!this.#byCount.has(this.#lowest)) this.#lowest++;
    const bucket = this.#byCount.get(this.#lowest)!;
    let next = this.#victimsCount === this.#lowest ? this.#victims?.next() : undefined;
    if (next === undefined || next.done) {
      this.#victims = bucket.values();
      this.#victimsCount = this.#lowest;
      next = this.#victims.next();
    }
    const victim = next.value as string;
    bucket.delete(victim);
    if (bucket.size === 0) this.#byCount.delete(this.#lowest);
    this.#counts.delete(victim);
    this.#evicted++;
  }

  async close(): Promise<void> {}
}
