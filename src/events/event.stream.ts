// The event feed as a Server-Sent Events stream (WHATWG HTML, "Server-sent events"; docs/events.md,
// "Live: the stream"). The stream is the feed read again and again: every poll is EventService.list,
// so the read rule (event.access.ts) and the scopes apply to it by construction, on every engine and
// across instances (each poll reads the shared database).
import { once, type EventEmitter } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { AppError, invalid } from '../errors.ts';
import type { Scope } from '../keys/key.types.ts';
import { EVENT_ID_PATTERN, serializeEvent, type ListEventsQuery } from './event.schemas.ts';
import type { EventService } from './event.service.ts';

export interface StreamSettings {
  /** How often an open stream reads the feed for what is new. */
  readonly pollMs: number;
  /** How long a stream may stay silent before a comment line is sent, so that proxies keep it open. */
  readonly heartbeatMs: number;
  /** Open streams per API key on one instance; one more is refused with 429. */
  readonly perKey: number;
}

export const STREAM_DEFAULTS: StreamSettings = { pollMs: 1000, heartbeatMs: 15_000, perKey: 4 };

/** Events read per query: a stream that is behind catches up a page at a time, without waiting for the next poll. */
const PAGE = 100;
/** A client that reads this far behind what was sent is dropped; it resumes with Last-Event-ID. */
const MAX_BUFFERED = 1024 * 1024;
const LAST_EVENT_ID = new RegExp(EVENT_ID_PATTERN);

/** One SSE message per event: `id` the event id, `event` its type, `data` the feed item's JSON text. */
export function sseMessage(e: { id: string; type: string }, json: string): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${json}\n\n`;
}

/** The open streams of one app: counted per key, ended all at once when the app closes. */
export class EventStreams {
  readonly #events: EventService;
  readonly #settings: StreamSettings;
  readonly #perKey = new Map<string, number>();
  // Each open stream: what ends it, and the close of its response.
  readonly #open = new Map<() => void, Promise<unknown>>();

  constructor(events: EventService, settings: Partial<StreamSettings> = {}) {
    this.#events = events;
    this.#settings = { ...STREAM_DEFAULTS, ...settings };
  }

  get settings(): StreamSettings {
    return this.#settings;
  }

  /**
   * Opens a stream of the events after `lastEventId` (else the query's `after`; else from the first
   * kept event) that a key holding `scopes` may read. The first read happens here, so a refusal
   * (a `type` the key cannot read, a bad `Last-Event-ID`) is an ordinary error response.
   */
  async open(
    key: string,
    q: ListEventsQuery,
    scopes: readonly Scope[],
    { lastEventId, response, onError }: { lastEventId: string | undefined; response: EventEmitter; onError: (err: unknown) => void },
  ): Promise<Readable> {
    if (q.cursor !== undefined)
      throw invalid('a stream starts after an event (`after` or `Last-Event-ID`), not from a cursor', {
        in: 'query',
        field: 'cursor',
        rule: 'exclusive',
        message: 'a live stream starts after an event, not from a page',
      });
    if (lastEventId !== undefined && !LAST_EVENT_ID.test(lastEventId))
      throw invalid('header "Last-Event-ID" must be an event id such as evt_42', {
        in: 'header',
        field: 'last-event-id',
        rule: 'pattern',
        message: 'must be the id of an event, such as evt_42',
      });
    const count = this.#perKey.get(key) ?? 0;
    if (count >= this.#settings.perKey)
      throw new AppError('rate_limited', `this API key has ${this.#settings.perKey} event streams open on this instance already; close one first`, {
        'retry-after': '1',
      });
    const read = (after: string | undefined) => this.#events.list({ limit: PAGE, type: q.type, petId: q.petId, after }, scopes);
    let after = lastEventId ?? q.after;
    // The place is taken before the first read, so that streams opened at once are all counted.
    this.#perKey.set(key, count + 1);
    const release = () => {
      const left = (this.#perKey.get(key) ?? 1) - 1;
      if (left === 0) this.#perKey.delete(key);
      else this.#perKey.set(key, left);
    };
    let first: Awaited<ReturnType<typeof read>>;
    try {
      first = await read(after);
    } catch (err) {
      release();
      throw err;
    }

    const out = new PassThrough();
    let lastSent = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let ended = false;
    const send = (text: string) => {
      out.write(text);
      lastSent = Date.now();
      if (out.writableLength > MAX_BUFFERED) end();
    };
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      this.#open.delete(end);
      release();
      out.end();
    };
    const deliver = (items: Awaited<ReturnType<typeof read>>['items']) => {
      if (items.length === 0) return;
      send(items.map((e) => sseMessage(e, serializeEvent(e))).join(''));
      after = items[items.length - 1].id;
    };
    const poll = async () => {
      try {
        for (;;) {
          const { items } = await read(after);
          if (ended) return;
          deliver(items);
          if (items.length < PAGE) break;
        }
        if (Date.now() - lastSent >= this.#settings.heartbeatMs) send(': heartbeat\n\n');
      } catch (err) {
        // The client reconnects (the EventSource rules) and resumes with Last-Event-ID.
        onError(err);
        end();
      }
      if (!ended) timer = setTimeout(poll, this.#settings.pollMs);
    };
    this.#open.set(end, once(response, 'close'));
    out.on('close', end);
    // A comment first, so that the response's head and the stream reach the client at once.
    send(`: events after ${after ?? 'the first'}\nretry: ${Math.max(this.#settings.pollMs, 1000)}\n\n`);
    deliver(first.items);
    if (first.items.length < PAGE) timer = setTimeout(poll, this.#settings.pollMs);
    else void poll();
    return out;
  }

  /**
   * Ends every open stream (the app is closing), and resolves once their responses are finished:
   * their connections are then idle, and the server's close() closes them instead of waiting.
   */
  async closeAll(): Promise<void> {
    const closed = [...this.#open];
    for (const [end] of closed) end();
    await Promise.all(closed.map(([, responseClosed]) => responseClosed));
  }

  /** How many streams are open on this instance. */
  get size(): number {
    return this.#open.size;
  }
}
