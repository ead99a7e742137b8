// How bench/report.ts turns runs into ratios: pure logic, so checked here with made-up runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summarise, type Measured } from '../../bench/report.ts';
import type { Scenario } from '../../bench/scenarios.ts';

const scenario: Scenario = { name: 'unauth', title: 'GET /v1/pets without a key (401)', method: 'GET', path: '/v1/pets', authorized: false, expect: 401 };
const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

function run(round: number, target: string, reqPerSec: number, partner?: string): Measured {
  return {
    round,
    target,
    ...(partner !== undefined ? { partner } : {}),
    result: { requests: reqPerSec, durationUs: 1e6, p50Us: 1000, p99Us: 2000, maxUs: 3000, non2xx: 0, socketErrors: 0 },
    reqPerSec,
    errors: 0,
  };
}

test('one after the other: each target is divided by the one baseline run of its round', () => {
  const runs = [run(1, 'baseline', 100), run(1, 'service', 90), run(1, 'before', 50), run(2, 'baseline', 200), run(2, 'service', 160), run(2, 'before', 120)];
  const s = summarise({ scenario, runs }, ['baseline', 'service', 'before']);
  const service = s.targets.find((t) => t.target === 'service')!;
  close(service.ratioRange[0], 0.8);
  close(service.ratioRange[1], 0.9);
  close(service.ratio, 0.85);
  close(s.targets.find((t) => t.target === 'before')!.ratio, 0.55);
});

test('--paired: each target is divided by the baseline run it was loaded together with, not another one of its round', () => {
  // Round 1: the baseline ran twice, once beside each target, at different speeds (the machine drifted).
  const runs = [
    run(1, 'baseline', 100, 'service'),
    run(1, 'service', 95, 'service'),
    run(1, 'baseline', 50, 'before'),
    run(1, 'before', 40, 'before'),
    run(2, 'baseline', 80, 'before'),
    run(2, 'before', 60, 'before'),
    run(2, 'baseline', 120, 'service'),
    run(2, 'service', 132, 'service'),
  ];
  const s = summarise({ scenario, runs }, ['baseline', 'service', 'before']);
  const by = (name: string) => s.targets.find((t) => t.target === name)!;
  close(by('service').ratioRange[0], 0.95);
  close(by('service').ratioRange[1], 1.1);
  close(by('before').ratioRange[0], 0.75);
  close(by('before').ratioRange[1], 0.8);
  close(by('baseline').ratio, 1);
  // The baseline's req/s is the median of all its runs.
  assert.equal(by('baseline').reqPerSec, 90);
});
