// GET /v1/events as a Server-Sent Events stream, on a real listening server (a stream is not a
// reply inject() can hold open): every event once and in order, resuming, the read rule, the
// per-key bound, one rate-limit count and one log line per stream, and shutdown with a stream open.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { sseMessage, STREAM_DEFAULTS } from '../../src/events/event.stream.ts';
import { wantsEventStream } from '../../src/events/event.routes.ts';
import { loggerOptions } from '../../src/logger.ts';
import { buildTestApp, fixedClock, keyWithScopes, logCapture } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';

// Short intervals instead of waiting: the streams poll every 10 ms (the default is 1 s).
const STREAMS = { pollMs: 10, heartbeatMs: 50 };

interface Message {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

/** A small SSE reader over fetch(): the messages as they arrive, comments counted apart. */
class EventStream {
  readonly status: number;
  readonly headers: Headers;
  readonly #res: Response;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  #queue: Message[] = [];
  comments = 0;
  ended = false;

  constructor(res: Response) {
    this.status = res.status;
    this.headers = res.headers;
    this.#res = res;
    this.#reader = res.status === 200 ? res.body?.getReader() : undefined;
  }

  /** The body of a refusal. */
  async error(): Promise<{ code: string }> {
    return (await this.#res.json()) as { code: string };
  }

  /** Reads what arrived next; false once the stream ended. */
  async #pump(): Promise<boolean> {
    const chunk = await this.#reader!.read();
    if (chunk.done) {
      this.ended = true;
      return false;
    }
    this.#buffer += this.#decoder.decode(chunk.value, { stream: true });
    for (let end = this.#buffer.indexOf('\n\n'); end !== -1; end = this.#buffer.indexOf('\n\n')) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments++;
        else {
          const colon = line.indexOf(':');
          fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
        }
      }
      if (fields.data !== undefined) this.#queue.push({ id: fields.id, event: fields.event, data: fields.data });
    }
    return true;
  }

  /** Reads until one more comment (a heartbeat) arrived. */
  async comment(): Promise<void> {
    const before = this.comments;
    while (this.comments === before) assert.ok(await this.#pump(), 'the stream ended');
  }

  static async open(origin: string, headers: Record<string, string>, query = ''): Promise<EventStream> {
    const res = await fetch(`${origin}/v1/events${query}`, { headers: { accept: 'text/event-stream', ...headers } });
    return new EventStream(res);
  }

  /** The next message; undefined when the stream ended first. */
  async next(): Promise<Message | undefined> {
    while (this.#queue.length === 0) if (!(await this.#pump())) return undefined;
    return this.#queue.shift();
  }

  /** The messages up to and including the first one `last` accepts. */
  async until(last: (m: Message) => boolean): Promise<Message[]> {
    const seen: Message[] = [];
    for (;;) {
      const m = await this.next();
      assert.ok(m, `the stream ended after ${seen.length} messages`);
      seen.push(m);
      if (last(m)) return seen;
    }
  }

  async close(): Promise<void> {
    if (this.#reader) await this.#reader.cancel();
    else if (!this.#res.bodyUsed) await this.#res.text();
  }
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

describe('event stream: pure parts', () => {
  test('answers a stream only when Accept names text/event-stream with a q above 0', () => {
    assert.equal(wantsEventStream(undefined), false);
    assert.equal(wantsEventStream('application/json'), false);
    assert.equal(wantsEventStream('text/event-stream'), true);
    assert.equal(wantsEventStream('application/json, Text/Event-Stream;q=0.5'), true);
    assert.equal(wantsEventStream('text/event-stream;q=0'), false);
  });
  test('writes one message per event: id, event, data, a blank line', () => {
    assert.equal(sseMessage({ id: 'evt_7', type: 'pet.created' }, '{"a":1}'), 'id: evt_7\nevent: pet.created\ndata: {"a":1}\n\n');
    assert.deepEqual(STREAM_DEFAULTS, { pollMs: 1000, heartbeatMs: 15_000, perKey: 4 });
  });
});

for (const engine of ENGINES) {
  describe(`${engine}: GET /v1/events as a stream`, () => {
    test('holds a stream through 100 events, each once and in order; counted once, logged once; resumes with Last-Event-ID or after', async (t) => {
      const logs = logCapture();
      const { app, auth, storage } = await buildTestApp(t, {
        engine,
        env: { RATE_LIMIT_PER_MINUTE: '1000' },
        // A still clock: the rate-limit window cannot roll over between the two counted requests.
        clock: fixedClock(new Date('2026-06-01T12:00:10Z')),
        eventStreams: STREAMS,
        logger: { ...(loggerOptions(loadConfig({})) as object), stream: logs.stream },
      });
      const origin = await listen(app);
      const reader = await keyWithScopes(storage, ['events:read', 'pets:read']);
      const stream = await EventStream.open(origin, reader);
      assert.equal(stream.status, 200);
      assert.equal(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.match(stream.headers.get('cache-control') ?? '', /no-store/);
      assert.match(stream.headers.get('ratelimit') ?? '', /r=999;/);

      const created: number[] = [];
      const writing = (async () => {
        for (let i = 0; i < 100; i++) {
          const res = await fetch(`${origin}/v1/pets`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `Pet ${i}`, categoryId: 1 }),
          });
          assert.equal(res.status, 201);
          created.push(((await res.json()) as { id: number }).id);
        }
      })();
      const messages: Message[] = [];
      while (messages.length < 100) messages.push((await stream.next())!);
      await writing;
      const ids = messages.map((m) => Number(m.id!.slice(4)));
      assert.deepEqual(
        ids,
        ids.toSorted((a, b) => a - b),
        'in order',
      );
      assert.equal(new Set(ids).size, 100, 'each once');
      for (const m of messages) {
        assert.equal(m.event, 'pet.created');
        const item = JSON.parse(m.data) as { id: string; type: string; data: { id: number } };
        assert.equal(item.id, m.id);
        assert.equal(item.type, m.event);
      }
      assert.deepEqual(
        messages.map((m) => (JSON.parse(m.data) as { data: { id: number } }).data.id),
        created,
      );
      // The stream's data is the feed's items, byte for byte.
      const feed = await fetch(`${origin}/v1/events?limit=100`, { headers: reader });
      const items = (await feed.json()) as unknown[];
      assert.deepEqual(
        messages.map((m) => m.data),
        items.map((i) => JSON.stringify(i)),
      );
      // Many polls later, the stream is still one request of the key's budget: the feed read above is its second.
      assert.match(feed.headers.get('ratelimit') ?? '', /r=998;/);
      // Nothing happens now: a heartbeat comes.
      await stream.comment();

      const resumed = await EventStream.open(origin, { ...reader, 'last-event-id': messages[49].id! });
      assert.equal((await resumed.next())?.id, messages[50].id);
      await resumed.close();
      const after = await EventStream.open(origin, reader, `?after=${messages[98].id}`);
      assert.equal((await after.next())?.id, messages[99].id);
      await after.close();
      const bad = await EventStream.open(origin, { ...reader, 'last-event-id': 'yesterday' });
      assert.equal(bad.status, 400);
      assert.equal((await bad.error()).code, 'validation_failed');

      await stream.close();
      await app.close();
      const streamLines = logs.lines().filter((l) => l.msg === 'request' && l.route === '/v1/events');
      // The first stream, the feed page, two resumed streams, the refused one.
      assert.equal(streamLines.length, 5, JSON.stringify(streamLines));
    });

    test('keeps to the read rule, bounds the streams of a key, and ends them when the app closes', async (t) => {
      const { app, auth, storage } = await buildTestApp(t, { engine, env: { RATE_LIMIT_PER_MINUTE: '0' }, eventStreams: STREAMS });
      const origin = await listen(app);
      const ordersOnly = await keyWithScopes(storage, ['events:read', 'orders:read']);
      const stream = await EventStream.open(origin, ordersOnly);
      assert.equal(stream.status, 200);
      const post = (url: string, body: object, method = 'POST') =>
        app.inject({ method: method as 'POST', url, headers: auth, payload: body }).then((r) => r.json() as { id: number });
      const pet = await post('/v1/pets', { name: 'Rex', categoryId: 1 });
      // One animal's history, live (petId, as the page asks): Tom's events only, though Rex's come first.
      const history = await EventStream.open(origin, auth, `?petId=${pet.id + 1}`);
      const tom = await post('/v1/pets', { name: 'Tom', categoryId: 1 });
      assert.equal(tom.id, pet.id + 1);
      const order = await post('/v1/store/orders', { petId: pet.id });
      await post(`/v1/store/orders/${order.id}`, { status: 'cancelled' }, 'PATCH');
      const seen = await stream.until((m) => m.event === 'order.cancelled');
      assert.deepEqual(
        seen.map((m) => m.event),
        ['order.placed', 'order.cancelled'],
      );
      await post(`/v1/pets/${tom.id}`, { name: 'Tommy' }, 'PATCH');
      const tomEvents = await history.until((m) => m.event === 'pet.updated');
      assert.deepEqual(
        tomEvents.map((m) => [m.event, JSON.parse(m.data).data.name]),
        [
          ['pet.created', 'Tom'],
          ['pet.updated', 'Tommy'],
        ],
      );
      await history.close();
      const refused = await EventStream.open(origin, ordersOnly, '?type=pet.created');
      assert.equal(refused.status, 403);
      assert.equal((await refused.error()).code, 'insufficient_scope');

      // Three more of this key's streams are let in, a fifth is refused; another key is not counted with it.
      const more = await Promise.all([1, 2, 3].map(() => EventStream.open(origin, ordersOnly)));
      assert.deepEqual(
        more.map((s) => s.status),
        [200, 200, 200],
      );
      const fifth = await EventStream.open(origin, ordersOnly);
      assert.equal(fifth.status, 429);
      assert.equal((await fifth.error()).code, 'rate_limited');
      const other = await EventStream.open(origin, auth);
      assert.equal(other.status, 200);
      await other.close();
      // A stream closed by its client frees its place.
      await more[0].close();
      const again = await waitForStatus(() => EventStream.open(origin, ordersOnly), 200);
      await again.close();

      // close() completes with streams open, and each of them ends.
      await app.close();
      assert.equal(await stream.next(), undefined);
      assert.ok(stream.ended);
      for (const s of more.slice(1)) {
        while ((await s.next()) !== undefined);
        assert.ok(s.ended);
      }
    });
  });
}

/** Opens until the answer has `status` (a closed stream's place is freed once the server sees the close). */
async function waitForStatus(open: () => Promise<EventStream>, status: number): Promise<EventStream> {
  for (;;) {
    const s = await open();
    if (s.status === status) return s;
    await s.close();
  }
}
