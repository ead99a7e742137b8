/**
 * Where fixed-window counts live. Windows are aligned on the clock (minute boundaries for a
 * 60 s window), so every instance sharing a store agrees on when a window ends.
 */
export interface CounterStore {
  /** Adds `by` (default one hit; or a cost such as milliseconds of image work) to `key`'s count in the window starting at `windowStart`; returns the new count. */
  increment(key: string, windowStart: number, windowMs: number, by?: number): Promise<number>;
  close(): Promise<void>;
  /** Keys counted in the current window and keys evicted so far, where the store keeps them itself. */
  readonly stats?: CounterStats;
  /** Forgets every count, where the store keeps them itself: a new store's state (tests sharing one app). */
  clear?(): void;
}

export interface CounterStats {
  readonly size: number;
  readonly evicted: number;
}
