// The console's search for the newest event (console/src/live.ts): the feed is ascending only, so it
// gallops and bisects over `after`; whatever the gaps purges and rollbacks leave, it lands on the newest.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Petstore } from '@petstore/client';
import { LiveFeed, newestEventId, readEventStream } from '../../console/src/live.ts';

/** A client whose events.list answers like GET /v1/events?after=…&limit=1 over these ids, counting calls. */
function feed(ids: readonly number[]): { client: Petstore; calls: () => number } {
  let calls = 0;
  const sorted = [...ids].sort((a, b) => a - b);
  const list = async (query: { after?: string; limit?: number }) => {
    calls++;
    const after = query.after === undefined ? 0 : Number(query.after.slice('evt_'.length));
    assert.ok(query.after === undefined || after >= 1, 'after names an event id ≥ 1');
    const data = sorted
      .filter((id) => id > after)
      .slice(0, query.limit ?? 20)
      .map((id) => ({ id: `evt_${id}` }));
    return { data, nextCursor: null };
  };
  return { client: { events: { list } } as unknown as Petstore, calls: () => calls };
}

test('an empty feed has no newest event (0)', async () => {
  assert.equal(await newestEventId(feed([]).client), 0);
});

test('finds the newest event whatever the gaps', async () => {
  for (const ids of [[1], [7], [1, 2, 3], [3, 4, 7, 100, 101, 5000], [999_999, 1_000_000], [2, 1_000_003]]) {
    assert.equal(await newestEventId(feed(ids).client), Math.max(...ids), JSON.stringify(ids));
  }
});

test('takes about 2·log2(newest id) requests, not one per page', async () => {
  const ids = Array.from({ length: 1_000_000 }, (_, i) => i + 1);
  const f = feed(ids);
  assert.equal(await newestEventId(f.client), 1_000_000);
  assert.ok(f.calls() <= 2 * Math.ceil(Math.log2(1_000_000)) + 2, `${f.calls()} requests`);
});

/** A body that sends these chunks, then stays open until `end` is called (or ends at once). */
function body(chunks: readonly string[], stayOpen = false): { stream: ReadableStream<Uint8Array>; end: () => void } {
  let close = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
      if (stayOpen) close = () => controller.close();
      else controller.close();
    },
  });
  return { stream, end: () => close() };
}

test('reads Server-Sent Events: messages split anywhere across chunks, comments skipped', async () => {
  const seen: string[][] = [];
  const { stream } = body([': hello\nretry: 1000\n\nid: evt_1\nevent: pet.created\nda', 'ta: {"a":1}\n\nid: evt_2\ndata: {"b":2}\n', '\n: heartbeat\n\n']);
  await readEventStream(stream, (data) => seen.push(data));
  assert.deepEqual(seen.flat(), ['{"a":1}', '{"b":2}']);
});

test('LiveFeed follows the stream from the newest event and polls only when the stream is refused', async () => {
  const f = feed([5]);
  const opened: (string | undefined)[] = [];
  const live = new LiveFeed(f.client, true, async (after) => {
    opened.push(after);
    if (opened.length > 1) return new Response('{"code":"rate_limited"}', { status: 429, headers: { 'content-type': 'application/json' } });
    const { stream } = body([`id: evt_6\nevent: pet.created\ndata: ${JSON.stringify({ id: 'evt_6', type: 'pet.created' })}\n\n`]);
    return new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
  });
  const received: string[] = [];
  const polled = new Promise<void>((resolve) =>
    live.subscribe((events) => {
      received.push(...events.map((e) => e.id));
      // The feed is read as a page only after the second stream was refused.
      if (opened.length === 2 && f.calls() > 2) resolve();
    }),
  );
  live.start();
  await polled;
  live.stop();
  assert.deepEqual(opened, ['evt_5', 'evt_6']);
  assert.deepEqual(received, ['evt_6']);
  assert.equal(live.position, 6);
});
