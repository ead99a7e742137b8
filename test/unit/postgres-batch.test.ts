import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchedLookup } from '../../src/storage/postgres/postgres.batch.ts';

/** A loader over a fixed table that records the batches it was asked for. */
function loader(table: Record<string, number>, fail?: Error) {
  const batches: string[][] = [];
  const load = async (keys: string[]) => {
    batches.push(keys);
    if (fail) throw fail;
    return new Map(keys.filter((k) => k in table).map((k) => [k, table[k]] as const));
  };
  return { load, batches };
}

test('lookups asked for in one loop turn go out as one batch of distinct keys; each gets its own answer', async () => {
  const { load, batches } = loader({ a: 1, b: 2, c: 3 });
  const lookup = new BatchedLookup(load);
  const answers = await Promise.all(['b', 'a', 'zz', 'b', 'c'].map((k) => lookup.get(k)));
  assert.deepEqual(answers, [2, 1, undefined, 2, 3]);
  assert.deepEqual(batches, [['b', 'a', 'zz', 'c']]);
});

test('lookups of later turns make later batches', async () => {
  const { load, batches } = loader({ a: 1, b: 2 });
  const lookup = new BatchedLookup(load);
  assert.equal(await lookup.get('a'), 1);
  assert.equal(await lookup.get('b'), 2);
  assert.deepEqual(batches, [['a'], ['b']]);
});

test('a batch larger than max is cut into several loads', async () => {
  const table = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`k${i}`, i]));
  const { load, batches } = loader(table);
  const lookup = new BatchedLookup(load, 3);
  const answers = await Promise.all(Object.keys(table).map((k) => lookup.get(k)));
  assert.deepEqual(answers, [0, 1, 2, 3, 4, 5, 6]);
  assert.deepEqual(
    batches.map((b) => b.length),
    [3, 3, 1],
  );
});

test('a failed load fails every lookup of its batch with its error, and the next turn loads again', async () => {
  const boom = new Error('database unavailable');
  let calls = 0;
  const lookup = new BatchedLookup(async (keys: string[]) => {
    if (calls++ === 0) throw boom;
    return new Map(keys.map((k) => [k, k.length] as const));
  });
  const results = await Promise.allSettled(['a', 'bb', 'a'].map((k) => lookup.get(k)));
  assert.deepEqual(
    results.map((r) => r.status === 'rejected' && r.reason),
    [boom, boom, boom],
  );
  assert.deepEqual(await Promise.all(['a', 'bb'].map((k) => lookup.get(k))), [1, 2]);
  assert.equal(calls, 2);
});
