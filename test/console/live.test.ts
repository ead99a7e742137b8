// The console's search for the newest event (console/src/live.ts): the feed is ascending only, so it
// gallops and bisects over `after`; whatever the gaps purges and rollbacks leave, it lands on the newest.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Petstore } from '@petstore/client';
import { newestEventId } from '../../console/src/live.ts';

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
