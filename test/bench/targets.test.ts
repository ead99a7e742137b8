// Issue 13's targets as bench/targets.ts judges them: pure logic, checked with made-up figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GOALS, atMost, goalsApply, rssGrowth } from '../../bench/targets.ts';

test("the issue's limits: CPU per request 1.6× on the reads, 1.5× on the 401, 2.5× on durable creates; p99 3× everywhere", () => {
  assert.deepEqual(GOALS, {
    list20: { cpuRatio: 1.6, p99Ratio: 3 },
    list100: { cpuRatio: 1.6, p99Ratio: 3 },
    get: { cpuRatio: 1.6, p99Ratio: 3 },
    unauth: { cpuRatio: 1.5, p99Ratio: 3 },
    create: { cpuRatio: 2.5, p99Ratio: 3 },
  });
});

test('atMost passes at the limit, fails above it, and has no verdict without a figure', () => {
  assert.equal(atMost(1.6, 1.6), 'pass');
  assert.equal(atMost(1.61, 1.6), 'FAIL');
  assert.equal(atMost(undefined, 1.6), 'n/a');
  assert.equal(atMost(NaN, 1.6), 'n/a');
});

test('the targets are judged only for SQLite with 1,000 pets', () => {
  assert.equal(goalsApply('sqlite', '1k'), true);
  assert.equal(goalsApply('sqlite', '1m'), false);
  assert.equal(goalsApply('postgres', '1k'), false);
});

test('rssGrowth compares the last round with the first, with 5 % of slack for a heap settling', () => {
  const MiB = 1024 * 1024;
  assert.deepEqual(rssGrowth([120 * MiB, 126 * MiB]), { grew: false, bytes: 6 * MiB });
  assert.deepEqual(rssGrowth([120 * MiB, 130 * MiB, 127 * MiB]), { grew: true, bytes: 7 * MiB });
  assert.deepEqual(rssGrowth([130 * MiB, 120 * MiB]), { grew: false, bytes: -10 * MiB });
  assert.equal(rssGrowth([120 * MiB]), undefined);
  assert.equal(rssGrowth([0, 0]), undefined, 'RSS unreadable (0): nothing to judge');
});
