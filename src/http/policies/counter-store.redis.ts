import { createClient } from '@redis/client';
import type { CounterStore } from './counter-store.ts';

/**
 * Counts shared by every instance through Redis: INCR on a key named for the window, expiring
 * after it. While Redis is unreachable a count fails at once and the limiter lets the request
 * through (and logs) instead of stalling the API behind it: the offline queue is off, and a count
 * is not even tried while the client is not connected (the client would hold it until its next
 * reconnection attempt failed, up to the backoff's 5 s).
 */
export class RedisCounterStore implements CounterStore {
  readonly #client;
  readonly #prefix: string;

  constructor(url: string, onError: (err: unknown) => void, prefix = 'petstore:rl:') {
    this.#prefix = prefix;
    this.#client = createClient({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5000) },
    });
    this.#client.on('error', onError);
  }

  async connect(): Promise<void> {
    await this.#client.connect();
  }

  async increment(key: string, windowStart: number, windowMs: number, by = 1): Promise<number> {
    if (!this.#client.isReady) throw new Error('Redis is not connected');
    const name = `${this.#prefix}${windowStart}:${key}`;
    const [count] = await this.#client
      .multi()
      .incrBy(name, by)
      .pExpire(name, windowMs * 2)
      .exec();
    return Number(count);
  }

  async close(): Promise<void> {
    try {
      if (this.#client.isReady) await this.#client.close();
      else this.#client.destroy();
    } catch {
      // already closed
    }
  }
}
