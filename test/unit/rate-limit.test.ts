import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Metrics } from '../../src/http/ops/metrics.ts';
import { MEMORY_COUNTER_CAPACITY, MemoryCounterStore } from '../../src/http/policies/counter-store.memory.ts';
import { addressKey } from '../../src/http/edge/client-address.ts';
import { buildLimits, FixedWindowLimiter } from '../../src/http/policies/rate-limit.ts';
import { RedisCounterStore } from '../../src/http/policies/counter-store.redis.ts';
import { freePort } from '../helpers/ports.ts';
import type { Storage } from '../../src/storage/storage.ts';

const clock = { now: () => new Date('2026-03-01T10:00:15Z') };

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Heap in use by what is still reachable. */
const liveHeap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};
const noWarn = () => {};

describe('addressKey: what the failed-authentication limit counts under', () => {
  test('an IPv4 address is its own key; an IPv4-mapped IPv6 address is its IPv4 address', () => {
    assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::FFFF:203.0.113.7'), '203.0.113.7');
  });

  test('an IPv6 address counts under its /64, however it is written', () => {
    const same = [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:DB8:1:2:0:0:0:9',
      '2001:0db8:0001:0002::abcd',
      'fe80::1%eth0'.replace('fe80', '2001:db8:1:2:0'),
    ];
    for (const a of same) assert.equal(addressKey(a), '2001:db8:1:2::/64', a);
    assert.notEqual(addressKey('2001:db8:1:3::1'), addressKey('2001:db8:1:2::1'));
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
    assert.equal(addressKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
    assert.equal(addressKey('2001:db8:1:2:3:4:192.0.2.1'), '2001:db8:1:2::/64');
  });
});

describe('MemoryCounterStore: bounded, and eviction does not free a counted address', () => {
  test('counts per key and window, starting again in the next window', async () => {
    const store = new MemoryCounterStore({ ceiling: 10 });
    assert.equal(await store.increment('a', 0), 1);
    assert.equal(await store.increment('a', 0), 2);
    assert.equal(await store.increment('b', 0), 1);
    assert.equal(await store.increment('a', 60_000), 1);
    assert.equal(store.stats.size, 1);
  });

  test('never holds more than its capacity; a full store forgets the least-counted key first', async () => {
    const store = new MemoryCounterStore({ ceiling: 10, capacity: 3 });
    for (const k of ['a', 'a', 'a', 'b', 'b', 'c']) await store.increment(k, 0);
    await store.increment('d', 0); // evicts c (1 hit), not a (3) or b (2)
    assert.deepEqual(store.stats, { size: 3, evicted: 1 });
    assert.equal(await store.increment('a', 0), 4, 'a kept its count');
    assert.equal(await store.increment('b', 0), 3, 'b kept its count');
    assert.equal(await store.increment('c', 0), 1, 'c was forgotten (it evicts d, now the least counted)');
    assert.equal(store.stats.size, 3);
  });

  // 10,000 guesses fill the 1,000-key store ten times over: a store that evicted by age or recency
  // (the attacker's key is the oldest) would forget the attacker at the first eviction.
  test('an address over the limit stays refused while 10,000 new addresses make one guess each', async () => {
    const limiter = new FixedWindowLimiter({ name: 'authfail', limit: 5, store: new MemoryCounterStore({ ceiling: 6, capacity: 1000 }), clock });
    for (let i = 0; i < 6; i++) await limiter.hit('attacker');
    assert.equal((await limiter.hit('attacker')).allowed, false);
    for (let i = 0; i < 10_000; i++) await limiter.hit(`flood-${i}`);
    assert.equal((await limiter.hit('attacker')).allowed, false, 'the flood evicted one-guess addresses, not the counted one');
    assert.ok(limiter.isBlocked('attacker'));
    assert.equal(limiter.stats?.size, 1000);
  });

  // Four times the capacity: the heap is compared when the store is first full twice over (200,000)
  // and again after 200,000 more evictions, so a store that kept evicted keys shows double the heap,
  // and a scan of the 100,000 keys per eviction would take minutes.
  test('400,000 distinct addresses leave memory bounded', async () => {
    // The failure limiter's store as buildLimits makes it (AUTH_FAILURE_LIMIT_PER_MINUTE=60).
    const store = new MemoryCounterStore({ ceiling: 61, capacity: MEMORY_COUNTER_CAPACITY });
    const before = liveHeap();
    const held: number[] = [];
    // CPU time of this thread, not wall time: a busy machine that leaves the test waiting for a core
    // does not make the store slower (a wall-clock bound flaked under load).
    const started = process.threadCpuUsage();
    for (let i = 0; i < 400_000; i++) {
      // Half IPv4 addresses, half IPv6 addresses in distinct /64s.
      const ip = i % 2 ? `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` : `2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`;
      await store.increment(addressKey(ip), 0);
      if (i === 199_999 || i === 399_999) held.push(liveHeap() - before);
    }
    const used = process.threadCpuUsage(started);
    const seconds = (used.user + used.system) / 1e6;
    assert.deepEqual(store.stats, { size: MEMORY_COUNTER_CAPACITY, evicted: 400_000 - MEMORY_COUNTER_CAPACITY });
    const mib = held.map((b) => b / 1024 / 1024);
    // Bounded: no more after 400,000 addresses than after 200,000, and a few tens of MiB at most.
    assert.ok(Math.max(...mib) < 40, `held ${mib.map((m) => m.toFixed(1)).join(', ')} MiB`);
    assert.ok(mib[1] < mib[0] * 1.25 + 1, `no growth past the capacity: ${mib.map((m) => m.toFixed(1)).join(', ')} MiB`);
    // Eviction is amortised O(1): a scan per eviction would take minutes here.
    assert.ok(seconds < 20, `${seconds.toFixed(1)} s of CPU`);
  });

  test('one key counted 300,000 times holds one entry: no bookkeeping per count', async () => {
    // The per-key limiter at RATE_LIMIT_PER_MINUTE=1000000 (how the bench runs the service).
    const store = new MemoryCounterStore({ ceiling: 1_000_001 });
    let atFirst = 0;
    for (let i = 1; i <= 300_000; i++) {
      assert.equal(await store.increment('key:1', 0), i);
      if (i === 1000) atFirst = liveHeap();
    }
    const grown = (liveHeap() - atFirst) / 1024 / 1024;
    // A structure kept per count value would hold about 300,000 objects by now (≈ 45 MiB); the bound
    // allows 16 bytes per count (what 16 MiB allowed over a million), less than any object takes.
    assert.ok(grown < 4.8, `${grown.toFixed(1)} MiB more after 300,000 counts than after 1,000`);
    assert.deepEqual(store.stats, { size: 1, evicted: 0 });
  });

  test('buildLimits bounds the failure limiter (keyed by client address); the per-key limiter counts API keys', async () => {
    const { perKey, authFailures } = await buildLimits(
      { rateLimitPerMinute: 600, authFailureLimitPerMinute: 60, photoBudgetMsPerMinute: 0, redisUrl: '' },
      clock,
      noWarn,
    );
    assert.deepEqual(authFailures?.stats, { size: 0, evicted: 0 });
    assert.deepEqual(perKey?.stats, { size: 0, evicted: 0 });
    for (let i = 0; i < 62; i++) await authFailures!.hit('203.0.113.7');
    assert.deepEqual(authFailures?.stats, { size: 1, evicted: 0 });
  });

  test('a weighted hit counts its cost (image work in ms); weight 0 only asks where the key stands', async () => {
    const { imageWork } = await buildLimits({ rateLimitPerMinute: 0, authFailureLimitPerMinute: 0, photoBudgetMsPerMinute: 1000, redisUrl: '' }, clock, noWarn);
    assert.deepEqual(await imageWork!.hit('tree:1', 0), { allowed: true, remaining: 1000, reset: 45 });
    assert.equal((await imageWork!.hit('tree:1', 600)).remaining, 400);
    assert.equal((await imageWork!.hit('tree:1', 0)).remaining, 400, 'asking costs nothing');
    assert.equal((await imageWork!.hit('tree:2', 999)).allowed, true, 'each key tree its own budget');
    assert.deepEqual(await imageWork!.hit('tree:1', 401), { allowed: false, remaining: 0, reset: 45 });
    assert.equal((await imageWork!.hit('tree:1', 0)).allowed, false, 'over until the window ends');
  });

  test('a bounded store evicts the least-counted key when counts grow by more than one', async () => {
    const store = new MemoryCounterStore({ ceiling: 100, capacity: 2 });
    assert.equal(await store.increment('a', 0, 60_000, 50), 50);
    assert.equal(await store.increment('b', 0, 60_000, 5), 5);
    assert.equal(await store.increment('a', 0, 60_000, 70), 100, 'kept up to the ceiling');
    assert.equal(await store.increment('c', 0, 60_000, 1), 1); // evicts b (5), the least counted
    assert.equal(await store.increment('a', 0, 60_000, 0), 100);
    assert.equal(await store.increment('b', 0, 60_000, 1), 1, 'b was evicted: counted afresh');
    assert.deepEqual(store.stats, { size: 2, evicted: 2 });
  });

  test('the limiter remembers a bounded number of refused keys', async () => {
    const limiter = new FixedWindowLimiter({ name: 'authfail', limit: 1, store: new MemoryCounterStore({ ceiling: 2, capacity: 10 }), clock });
    for (let i = 0; i < MEMORY_COUNTER_CAPACITY + 10; i++) {
      await limiter.hit(`k${i}`);
      await limiter.hit(`k${i}`);
    }
    assert.equal(limiter.isBlocked('k0'), undefined, 'the earliest refused key was forgotten');
    assert.ok(limiter.isBlocked(`k${MEMORY_COUNTER_CAPACITY + 9}`));
  });

  test('/metrics reports the addresses counted and the evictions as they happen', async () => {
    const metrics = new Metrics({} as Storage, { processMetrics: false });
    let stats = { size: 3, evicted: 0 };
    metrics.watchFailureCounts(() => stats);
    const text = () => metrics.registry.metrics();
    assert.match(await text(), /^petstore_auth_failure_addresses 3$/m);
    assert.match(await text(), /^petstore_auth_failure_addresses_evicted_total 0$/m);
    stats = { size: MEMORY_COUNTER_CAPACITY, evicted: 7 };
    assert.match(await text(), /^petstore_auth_failure_addresses_evicted_total 7$/m);
    stats = { size: MEMORY_COUNTER_CAPACITY, evicted: 9 };
    assert.match(await text(), /^petstore_auth_failure_addresses_evicted_total 9$/m);
    assert.match(await text(), /^petstore_auth_failure_addresses 100000$/m);
  });
});

test('RedisCounterStore: while Redis is unreachable a count fails at once, without waiting for a reconnection', async (t) => {
  const port = await freePort(); // nothing listens here
  let refused!: () => void;
  const firstRefusal = new Promise<void>((resolve) => (refused = resolve));
  const store = new RedisCounterStore(`redis://127.0.0.1:${port}`, () => refused());
  t.after(() => store.close());
  void store.connect().catch(noWarn); // keeps retrying: it settles only when closed
  await firstRefusal;
  const started = performance.now();
  for (let i = 0; i < 5; i++) await assert.rejects(store.increment('k', 0, 60_000));
  // Waiting for each reconnection attempt (backoff 100, 200, 400, … ms) would take seconds.
  const ms = performance.now() - started;
  assert.ok(ms < 500, `5 counts took ${Math.round(ms)} ms`);
});

describe('FixedWindowLimiter.clear: what tests sharing one app reset it with', () => {
  test('forgets every count, block and eviction: the limiter answers as a new one', async () => {
    const fresh = () => new FixedWindowLimiter({ name: 'authfail', limit: 2, store: new MemoryCounterStore({ ceiling: 3, capacity: 2 }), clock });
    const used = fresh();
    for (const key of ['a', 'a', 'a', 'b', 'c']) await used.hit(key);
    assert.ok(used.isBlocked('a'), 'a went over the limit');
    assert.deepEqual(used.stats, { size: 2, evicted: 1 });
    used.clear();
    const unused = fresh();
    assert.deepEqual(used.stats, unused.stats);
    assert.equal(used.isBlocked('a'), undefined);
    for (const key of ['a', 'a', 'a']) assert.deepEqual(await used.hit(key), await unused.hit(key));
  });

  test('refuses to clear counts kept in a store it cannot clear (Redis, shared by instances)', () => {
    const store = { increment: async () => 1, close: async () => {} };
    assert.throws(() => new FixedWindowLimiter({ name: 'key', limit: 2, store, clock }).clear(), /limiter's counts are kept where they cannot be cleared/);
  });
});
