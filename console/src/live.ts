// Live updates: the console follows the event feed (GET /v1/events?after=…), so a change made in
// another browser shows here within the poll interval. A key without events:read cannot follow the
// feed; the pages then reload what they show on every poll instead, and the poll itself asks
// GET /v1/keys/me, so that a revoked key is noticed on every page.
import type { Event, Petstore } from '@petstore/client';

export const POLL_MS = 1000;
const FALLBACK_MS = 2000;

type Listener = (events: readonly Event[]) => void;

const sequence = (e: Event): number => Number(e.id.slice('evt_'.length));

/**
 * The id of the newest event. The feed is ascending and has no "newest first" order, so this searches
 * for it: `after=evt_N&limit=1` answers the first event after N, or nothing when N is the newest.
 * Galloping then bisecting takes about 2·log2(newest id) requests of one event each.
 */
export async function newestEventId(client: Petstore, signal?: AbortSignal): Promise<number> {
  const next = async (after: number): Promise<number | undefined> => {
    const page = await client.events.list(after === 0 ? { limit: 1 } : { after: `evt_${after}`, limit: 1 }, { signal });
    return page.data[0] === undefined ? undefined : sequence(page.data[0]);
  };
  const first = await next(0);
  if (first === undefined) return 0;
  // lo is always an event's id (the newest is at least lo); hi is known to have nothing after it.
  let lo = first;
  let step = 1;
  let hi: number;
  for (;;) {
    const found = await next(lo + step);
    if (found === undefined) {
      hi = lo + step;
      break;
    }
    lo = found;
    step *= 2;
  }
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const found = await next(mid);
    if (found === undefined) hi = mid;
    else lo = found;
  }
  return lo;
}

export class LiveFeed {
  readonly #client: Petstore;
  readonly #follow: boolean;
  readonly #listeners = new Set<Listener>();
  readonly #stop = new AbortController();
  #after = 0;

  constructor(client: Petstore, canReadEvents: boolean) {
    this.#client = client;
    this.#follow = canReadEvents;
  }

  /** Calls `listener` on every poll with the new events (none, when nothing happened or the key cannot read the feed). */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get following(): boolean {
    return this.#follow;
  }

  /** The id of the last event seen (0: none yet). */
  get position(): number {
    return this.#after;
  }

  start(): void {
    void this.#run();
  }

  stop(): void {
    this.#stop.abort();
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        if (!this.#started) {
          if (this.#follow) this.#after = await newestEventId(this.#client, signal);
          this.#started = true;
          for (const resolve of this.#waiting.splice(0)) resolve();
        }
        let full = false;
        if (this.#follow) {
          const page = await this.#client.events.list(this.#after === 0 ? { limit: 100 } : { after: `evt_${this.#after}`, limit: 100 }, { signal });
          if (page.data.length > 0) this.#after = sequence(page.data[page.data.length - 1]!);
          this.#emit(page.data);
          full = page.data.length === 100;
        } else {
          // Still one call per poll, so a key revoked meanwhile signs the console out (session.ts) on any page.
          await this.#client.keys.me({ signal });
          this.#emit([]);
        }
        if (!full) await wait(this.#follow ? POLL_MS : FALLBACK_MS, signal);
      } catch {
        // A failed poll (the service restarting, a network blip) is tried again; a refused key signs out (session.ts).
        await wait(FALLBACK_MS, signal).catch(() => {});
      }
    }
  }

  #started = false;
  readonly #waiting: (() => void)[] = [];
  /** Resolves once the feed knows where it starts. */
  ready(): Promise<void> {
    return new Promise((resolve) => (this.#started ? resolve() : this.#waiting.push(resolve)));
  }

  #emit(events: readonly Event[]): void {
    for (const listener of this.#listeners) listener(events);
  }
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
