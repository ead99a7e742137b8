// Live updates: the console follows the event feed, so a change made in another browser shows here
// at once: as a Server-Sent Events stream (GET /v1/events with Accept: text/event-stream, read with
// fetch, since an EventSource cannot send Authorization), or, when the stream cannot be had (the key
// has 4 streams open already, an old service), by polling GET /v1/events?after=… every second. A key without events:read cannot follow the
// feed; the pages then reload what they show on every poll instead, and the poll itself asks
// GET /v1/keys/me, so that a revoked key is noticed on every page.
import type { Event, Petstore } from '@petstore/client';

export const POLL_MS = 1000;
const FALLBACK_MS = 2000;
/** After a stream failed, the console polls this long before it tries a stream again. */
const STREAM_RETRY_MS = 30_000;

/** Opens the feed as a stream after an event id (session.ts, openEventStream). */
export type OpenEventStream = (after: string | undefined, signal: AbortSignal) => Promise<Response>;

/**
 * Reads a Server-Sent Events body (WHATWG HTML, "Server-sent events": `data:` lines of a message
 * joined, `:` comments skipped), calling `onMessages` with the data of the messages each chunk completes.
 */
export async function readEventStream(body: ReadableStream<Uint8Array>, onMessages: (data: string[]) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop()!;
    const data = blocks
      .map((block) =>
        block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n'),
      )
      .filter((d) => d !== '');
    onMessages(data);
  }
}

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

  readonly #openStream: OpenEventStream | undefined;
  #pollUntil = 0;

  constructor(client: Petstore, canReadEvents: boolean, openStream?: OpenEventStream) {
    this.#client = client;
    this.#follow = canReadEvents;
    this.#openStream = openStream;
  }

  /** Follows the stream until it ends; false when it could not be opened or broke (then the console polls a while). */
  async #stream(open: OpenEventStream, signal: AbortSignal): Promise<boolean> {
    try {
      const response = await open(this.#after === 0 ? undefined : `evt_${this.#after}`, signal);
      if (!response.ok || response.body === null || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
        await response.body?.cancel();
        return false;
      }
      // Listeners that reload on every poll (the delivery log, which changes without events) still do.
      const tick = setInterval(() => this.#emit([]), POLL_MS);
      try {
        await readEventStream(response.body, (data) => {
          const events = data.map((d) => JSON.parse(d) as Event);
          if (events.length > 0) this.#after = sequence(events[events.length - 1]!);
          if (events.length > 0) this.#emit(events);
        });
      } finally {
        clearInterval(tick);
      }
      // Ended by the service (a restart): open it again, from where it stopped.
      return true;
    } catch {
      return signal.aborted;
    }
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
        if (this.#follow && this.#openStream && Date.now() >= this.#pollUntil) {
          if (!(await this.#stream(this.#openStream, signal))) this.#pollUntil = Date.now() + STREAM_RETRY_MS;
          continue;
        }
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
