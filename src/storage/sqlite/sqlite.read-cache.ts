import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * Memoises read results until the database changes, asking SQLite on every lookup whether it has:
 * total_changes() counts the rows this connection wrote, and PRAGMA data_version moves whenever
 * another connection — another instance, the `petstore` CLI revoking a key — commits. A cached
 * answer is therefore never older than the last commit any process made before the lookup, the
 * same freshness a query gives, at the price of one tiny statement instead of the real one.
 * Bounded: when full it starts over.
 */
export class ReadCache<V> {
  readonly #stamp: StatementSync;
  readonly #max: number;
  readonly #entries = new Map<string, V>();
  #changes = -1;
  #version = -1;

  constructor(db: DatabaseSync, max: number) {
    this.#stamp = db.prepare('SELECT total_changes(), data_version FROM pragma_data_version');
    this.#stamp.setReturnArrays(true);
    this.#max = max;
  }

  /** The cached value for key, or compute()'s, remembered unless it is undefined. */
  get(key: string, compute: () => V | undefined): V | undefined {
    const [changes, version] = this.#stamp.get() as unknown as [number, number];
    if (changes !== this.#changes || version !== this.#version) {
      this.#entries.clear();
      this.#changes = changes;
      this.#version = version;
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
