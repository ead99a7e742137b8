import type { Clock } from '../../clock.ts';
import type { CounterStats, CounterStore } from './counter-store.ts';
import { MEMORY_COUNTER_CAPACITY, MemoryCounterStore } from './counter-store.memory.ts';

export interface Verdict {
  readonly allowed: boolean;
  readonly remaining: number;
  /** Seconds until the window resets (≥ 1). */
  readonly reset: number;
}

/** A fixed-window limiter: at most `limit` hits per key per window. */
export class FixedWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  /** The IETF RateLimit-Policy field value for this limiter. */
  readonly policy: string;
  readonly #store: CounterStore;
  readonly #clock: Clock;
  readonly #onStoreError: (err: unknown) => void;
  // Keys known to be over the limit, until their window ends: answered without asking the store.
  // At most MEMORY_COUNTER_CAPACITY of them; the earliest blocked is forgotten first, which takes
  // that many other keys going over the limit within the window.
  #blockedWindow = -1;
  #blocked = new Set<string>();

  readonly #name: string;

  constructor(options: { name: string; limit: number; windowMs?: number; store: CounterStore; clock: Clock; onStoreError?: (err: unknown) => void }) {
    this.#name = `${options.name}:`;
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? 60_000;
    this.policy = `"default";q=${this.limit};w=${Math.round(this.windowMs / 1000)}`;
    this.#store = options.store;
    this.#clock = options.clock;
    this.#onStoreError = options.onStoreError ?? (() => {});
  }

  #window(now: number): number {
    const start = now - (now % this.windowMs);
    if (start !== this.#blockedWindow) {
      this.#blockedWindow = start;
      this.#blocked = new Set();
    }
    return start;
  }

  #reset(now: number, start: number): number {
    return Math.max(1, Math.ceil((start + this.windowMs - now) / 1000));
  }

  /** What the store says about its keys (the in-memory store; undefined with Redis). */
  get stats(): CounterStats | undefined {
    return this.#store.stats;
  }

  /** Forgets every count and block, as a new limiter on a new store starts (tests sharing one app). */
  clear(): void {
    if (!this.#store.clear) throw new Error(`the ${this.#name.slice(0, -1)} limiter's counts are kept where they cannot be cleared`);
    this.#store.clear();
    this.#blockedWindow = -1;
    this.#blocked = new Set();
  }

  /** Whether `key` already used up this window here, without counting a hit. */
  isBlocked(key: string): Verdict | undefined {
    const now = this.#clock.now().getTime();
    const start = this.#window(now);
    return this.#blocked.has(key) ? { allowed: false, remaining: 0, reset: this.#reset(now, start) } : undefined;
  }

  /**
   * Counts one hit, or `weight` of them (a cost: 0 only asks where the key stands). If the store
   * fails the request is let through (fail open) and reported.
   */
  async hit(key: string, weight = 1): Promise<Verdict> {
    const now = this.#clock.now().getTime();
    const start = this.#window(now);
    let count: number;
    try {
      count = await this.#store.increment(this.#name + key, start, this.windowMs, weight);
    } catch (err) {
      this.#onStoreError(err);
      return { allowed: true, remaining: this.limit, reset: this.#reset(now, start) };
    }
    if (count > this.limit && !this.#blocked.has(key)) {
      if (this.#blocked.size >= MEMORY_COUNTER_CAPACITY) this.#blocked.delete(this.#blocked.values().next().value!);
      this.#blocked.add(key);
    }
    return { allowed: count <= this.limit, remaining: Math.max(0, this.limit - count), reset: this.#reset(now, start) };
  }

  /** The IETF RateLimit field value for a verdict. */
  static field(v: Verdict): string {
    return `"default";r=${v.remaining};t=${v.reset}`;
  }
}

/** Failed sign-ins a client address may make per minute (staff/session.service.ts). */
export const SIGN_IN_FAILURES_PER_ADDRESS = 30;
/** Failed sign-ins to one account from one client address per minute. */
export const SIGN_IN_FAILURES_PER_ACCOUNT = 5;

export interface Limits {
  readonly perKey?: FixedWindowLimiter;
  readonly authFailures?: FixedWindowLimiter;
  /** Failed staff sign-ins: per address, and per account and address; always on. */
  readonly signIn: { readonly perAddress: FixedWindowLimiter; readonly perAccount: FixedWindowLimiter };
  /** Milliseconds of image work per key tree (PHOTO_BUDGET_MS_PER_MINUTE), charged after each upload. */
  readonly imageWork?: FixedWindowLimiter;
  /** Forgets every count (FixedWindowLimiter.clear). */
  clear(): void;
  close(): Promise<void>;
}

/**
 * The limiters from configuration: per-instance counts, or counts shared through Redis when
 * REDIS_URL is set. Store failures are logged at most every 10 s and the request is let through.
 */
export async function buildLimits(
  config: { rateLimitPerMinute: number; authFailureLimitPerMinute: number; photoBudgetMsPerMinute: number; redisUrl: string },
  clock: Clock,
  warn: (err: unknown, message: string) => void,
): Promise<Limits> {
  let lastWarning = 0;
  const onStoreError = (err: unknown) => {
    const now = Date.now();
    if (now - lastWarning < 10_000) return;
    lastWarning = now;
    warn(err, 'rate-limit store unavailable; requests are let through uncounted');
  };
  // Sign-in failures are always counted, so a configured shared store is always used.
  let shared: CounterStore | undefined;
  if (config.redisUrl) {
    const { RedisCounterStore } = await import('./counter-store.redis.ts');
    const redis = new RedisCounterStore(config.redisUrl, onStoreError);
    // Start-up does not wait on Redis for long: until it answers, limits fail open.
    await Promise.race([redis.connect().catch(onStoreError), new Promise((r) => setTimeout(r, 2000).unref())]);
    shared = redis;
  }
  // Only the failure limit is keyed by something a client chooses (its address): only its store is bounded.
  const make = (name: string, limit: number, capacity?: number) =>
    limit > 0
      ? new FixedWindowLimiter({ name, limit, store: shared ?? new MemoryCounterStore({ ceiling: limit + 1, capacity }), clock, onStoreError })
      : undefined;
  const perKey = make('key', config.rateLimitPerMinute);
  const authFailures = make('authfail', config.authFailureLimitPerMinute, MEMORY_COUNTER_CAPACITY);
  const signIn = {
    perAddress: make('signin-address', SIGN_IN_FAILURES_PER_ADDRESS, MEMORY_COUNTER_CAPACITY)!,
    perAccount: make('signin-account', SIGN_IN_FAILURES_PER_ACCOUNT, MEMORY_COUNTER_CAPACITY)!,
  };
  const imageWork = make('imagems', config.photoBudgetMsPerMinute);
  return {
    perKey,
    authFailures,
    signIn,
    imageWork,
    clear: () => {
      perKey?.clear();
      authFailures?.clear();
      signIn.perAddress.clear();
      signIn.perAccount.clear();
      imageWork?.clear();
    },
    close: async () => shared?.close(),
  };
}
