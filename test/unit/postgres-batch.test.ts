import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BatchedLookup, BatchedWrite } from '../../src/storage/postgres/postgres.batch.ts';

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
  assert.deepEqual(batches.map((b) => b.length), [3, 3, 1]);
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

describe('BatchedWrite', () => {
  const constraint = Object.assign(new Error('violates foreign key'), { retryable: true });
  /** A store whose batch statement fails when any input is negative; single writes fail only for it. */
  function store() {
    const log: string[] = [];
    let next = 1;
    const write = (n: number) => {
      if (n < 0) throw constraint;
      return { id: next++, n };
    };
    const w = new BatchedWrite<number, { id: number; n: number }>({
      many: async (inputs) => {
        log.push(`many ${inputs.join(',')}`);
        if (inputs.some((n) => n < 0)) throw constraint;
        return inputs.map(write);
      },
      one: async (n) => {
        log.push(`one ${n}`);
        return write(n);
      },
      retryAlone: (err) => (err as { retryable?: boolean }).retryable === true,
      max: 3,
    });
    return { w, log };
  }

  test('the writes of one loop turn are one call of many (cut at max), each caller its own output', async () => {
    const { w, log } = store();
    const outputs = await Promise.all([10, 20, 30, 40].map((n) => w.call(n)));
    assert.deepEqual(outputs.map((o) => o.n), [10, 20, 30, 40]);
    assert.equal(new Set(outputs.map((o) => o.id)).size, 4);
    assert.deepEqual(log, ['many 10,20,30', 'one 40']);
  });

  test('a batch failing with a retryable error runs each write alone: only the bad one fails', async () => {
    const { w, log } = store();
    const results = await Promise.allSettled([1, -2, 3].map((n) => w.call(n)));
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value.n : 'failed')),
      [1, 'failed', 3],
    );
    assert.deepEqual(log, ['many 1,-2,3', 'one 1', 'one -2', 'one 3']);
  });

  test('any other failure fails every write of the batch and retries none (it might have been committed)', async () => {
    const lost = new Error('connection lost');
    let ones = 0;
    const w = new BatchedWrite<number, number>({
      many: async () => Promise.reject(lost),
      one: async (n) => {
        ones++;
        return n;
      },
      retryAlone: () => false,
    });
    const results = await Promise.allSettled([1, 2].map((n) => w.call(n)));
    assert.deepEqual(
      results.map((r) => r.status === 'rejected' && r.reason),
      [lost, lost],
    );
    assert.equal(ones, 0);
  });
});
