// How bench/report.ts turns runs into CPU and throughput ratios: pure logic, so checked here with made-up runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuPerRequest, formatSpread, markdownTable, memoryLine, scenarioTable, serverBound, spread, summarise, type Measured } from '../../bench/report.ts';
import type { Scenario } from '../../bench/scenarios.ts';

const scenario: Scenario = { name: 'unauth', title: 'GET /v1/pets without a key (401)', method: 'GET', path: '/v1/pets', authorized: false, expect: 401 };
const close = (actual: number | undefined, expected: number) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

interface RunSpec {
  partner?: string;
  /** CPU µs per request (schedstat); utime+stime is the same rounded to 10 ms ticks. */
  cpuUs?: number;
  p99Us?: number;
  serverBusy?: number;
  /** Share of the run the server process was on CPU (needs cpuUs): sets the run's wall time. */
  ownShare?: number;
}

function run(round: number, target: string, reqPerSec: number, spec: RunSpec = {}): Measured {
  const requests = reqPerSec; // 1-second runs
  const schedUs = spec.cpuUs === undefined ? undefined : spec.cpuUs * requests;
  return {
    round,
    target,
    ...(spec.partner !== undefined ? { partner: spec.partner } : {}),
    result: { requests, durationUs: 1e6, p50Us: 1000, p99Us: spec.p99Us ?? 2000, maxUs: 3000, non2xx: 0, socketErrors: 0 },
    reqPerSec,
    errors: 0,
    ...(schedUs !== undefined ? { cpu: { schedUs, statUs: Math.round(schedUs / 10_000) * 10_000 } } : {}),
    ...(spec.serverBusy !== undefined ? { cores: { server: spec.serverBusy, load: 0.5 } } : {}),
    ...(schedUs !== undefined && spec.ownShare !== undefined ? { wallUs: schedUs / spec.ownShare } : {}),
  };
}

test('one after the other: each target is divided by the one baseline run of its round', () => {
  const runs = [run(1, 'baseline', 100), run(1, 'service', 90), run(1, 'before', 50), run(2, 'baseline', 200), run(2, 'service', 160), run(2, 'before', 120)];
  const s = summarise({ scenario, runs }, ['baseline', 'service', 'before']);
  const service = s.targets.find((t) => t.target === 'service')!;
  close(service.ratio.min, 0.8);
  close(service.ratio.max, 0.9);
  close(service.ratio.median, 0.85);
  close(s.targets.find((t) => t.target === 'before')!.ratio.median, 0.55);
  assert.equal(s.cpuSource, undefined, 'no /proc figures: no CPU source');
  assert.equal(service.cpuRatio, undefined);
});

test('--paired: each target is divided by the baseline run it was loaded together with, not another one of its round', () => {
  // Round 1: the baseline ran twice, once beside each target, at different speeds (the machine drifted).
  const runs = [
    run(1, 'baseline', 100, { partner: 'service', cpuUs: 40 }),
    run(1, 'service', 95, { partner: 'service', cpuUs: 60 }),
    run(1, 'baseline', 50, { partner: 'before', cpuUs: 50 }),
    run(1, 'before', 40, { partner: 'before', cpuUs: 100 }),
    run(2, 'baseline', 80, { partner: 'before', cpuUs: 40 }),
    run(2, 'before', 60, { partner: 'before', cpuUs: 90 }),
    run(2, 'baseline', 120, { partner: 'service', cpuUs: 50 }),
    run(2, 'service', 132, { partner: 'service', cpuUs: 70 }),
  ];
  const s = summarise({ scenario, runs }, ['baseline', 'service', 'before']);
  const by = (name: string) => s.targets.find((t) => t.target === name)!;
  close(by('service').ratio.min, 0.95);
  close(by('service').ratio.max, 1.1);
  close(by('before').ratio.min, 0.75);
  close(by('before').ratio.max, 0.8);
  close(by('baseline').ratio.median, 1);
  // CPU per request is per process, so the paired ratio is the partner baseline's: 60/40 and 70/50.
  close(by('service').cpuRatio?.min, 1.4);
  close(by('service').cpuRatio?.max, 1.5);
  close(by('before').cpuRatio?.median, (2 + 2.25) / 2);
  // The baseline's req/s is the median of all its runs.
  assert.equal(by('baseline').reqPerSec, 90);
});

test('CPU per request is Δcpu / requests served, from schedstat when every run has it, else from utime + stime', () => {
  const r = run(1, 'service', 1000, { cpuUs: 55.5 });
  close(cpuPerRequest(r), 55.5);
  close(cpuPerRequest(r, 'stat'), 60); // 55,500 µs rounded to 10 ms ticks: 60,000 µs over 1,000 requests
  assert.ok(Number.isNaN(cpuPerRequest(run(1, 'service', 1000))), 'no /proc: NaN, never 0');
  assert.ok(Number.isNaN(cpuPerRequest({ ...r, result: { ...r.result, requests: 0 } })), 'no requests: NaN, not Infinity');

  const sched = summarise({ scenario, runs: [run(1, 'baseline', 1000, { cpuUs: 40 }), run(1, 'service', 1000, { cpuUs: 64 })] }, ['baseline', 'service']);
  assert.equal(sched.cpuSource, 'schedstat');
  close(sched.targets[1].cpuUsPerRequest?.median, 64);
  close(sched.targets[1].statUsPerRequest?.median, 60);
  close(sched.targets[1].cpuRatio?.median, 1.6);

  // One run without schedstat: every run is read from utime + stime, so no ratio mixes the two.
  const noSched = run(1, 'service', 1000, { cpuUs: 64 });
  const mixed = summarise({ scenario, runs: [run(1, 'baseline', 1000, { cpuUs: 40 }), { ...noSched, cpu: { statUs: noSched.cpu!.statUs } }] }, [
    'baseline',
    'service',
  ]);
  assert.equal(mixed.cpuSource, 'utime+stime');
  close(mixed.targets[1].cpuRatio?.median, 60 / 40);
});

test('a throughput ratio is marked not server-bound in each round whose baseline core was under 90 % busy; the CPU ratio is kept', () => {
  assert.equal(serverBound(run(1, 'baseline', 1, { serverBusy: 0.9 })), true);
  assert.equal(serverBound(run(1, 'baseline', 1, { serverBusy: 0.899 })), false);
  assert.equal(serverBound(run(1, 'baseline', 1)), undefined, 'core load not measured: unknown');
  // The core busy, but not with the baseline: another process on its core set the pace.
  assert.equal(serverBound(run(1, 'baseline', 1000, { serverBusy: 0.98, cpuUs: 10, ownShare: 0.95 })), true);
  assert.equal(serverBound(run(1, 'baseline', 1000, { serverBusy: 0.98, cpuUs: 10, ownShare: 0.32 })), false);
  // --paired: the baseline shares its core with its partner by design; the two count together.
  const pairedBase = run(1, 'baseline', 1000, { partner: 'service', serverBusy: 0.99, cpuUs: 10, ownShare: 0.45 });
  assert.equal(serverBound(pairedBase, run(1, 'service', 700, { partner: 'service', cpuUs: 20, ownShare: 0.5 })), true);
  assert.equal(serverBound(pairedBase, run(1, 'service', 700, { partner: 'service', cpuUs: 20, ownShare: 0.3 })), false);

  const runs = [
    run(1, 'baseline', 100, { cpuUs: 50, serverBusy: 0.99, ownShare: 0.97 }),
    run(1, 'service', 60, { cpuUs: 80, serverBusy: 1, ownShare: 0.99 }),
    run(2, 'baseline', 70, { cpuUs: 50, serverBusy: 0.62, ownShare: 0.6 }),
    run(2, 'service', 63, { cpuUs: 85, serverBusy: 1, ownShare: 0.99 }),
  ];
  const s = summarise({ scenario, runs }, ['baseline', 'service']);
  const service = s.targets[1];
  assert.equal(service.notServerBound, 1);
  assert.deepEqual(service.baselineBusy, [0.99, 0.62]);
  close(service.baselineOwnShare[0], 0.97);
  close(service.baselineOwnShare[1], 0.6);
  close(service.cpuRatio?.median, (1.6 + 1.7) / 2);
  close(service.serverBusy?.median, 1);
  const table = scenarioTable(s);
  assert.match(table, /0\.75 \(0\.60–0\.90\)\*/, 'the marked ratio');
  assert.match(
    table,
    /\* service: throughput ratio not server-bound in 1 of 2 rounds — per round, the baseline's core was 99 %, 62 % busy and the baseline process on CPU 97 %, 60 % of the run/,
  );
  assert.match(markdownTable([s]), /`\*`: throughput ratio not server-bound/);
});

test("a round whose baseline core was busy with another tenant's work is marked too", () => {
  // The harness check of this change saw it: core 92 % busy, the baseline process on CPU 32 %, ratio 2.55.
  const runs = [
    run(1, 'baseline', 26_000, { cpuUs: 12, serverBusy: 0.92, ownShare: 0.32 }),
    run(1, 'service', 67_000, { cpuUs: 15, serverBusy: 1, ownShare: 0.99 }),
  ];
  const service = summarise({ scenario, runs }, ['baseline', 'service']).targets[1];
  assert.equal(service.notServerBound, 1);
  close(service.cpuRatio?.median, 15 / 12);
});

test('a throughput ratio above 1 is called out as a broken measurement', () => {
  const s = summarise({ scenario, runs: [run(1, 'baseline', 100, { serverBusy: 0.95 }), run(1, 'service', 120, { serverBusy: 1 })] }, ['baseline', 'service']);
  assert.match(scenarioTable(s), /! service served more requests per second than the bare baseline/);
});

test('targets are judged on the median CPU and p99 ratios, for the services named, not the reference servers', () => {
  const runs = [
    run(1, 'baseline', 100, { cpuUs: 40, p99Us: 1000 }),
    run(1, 'service', 80, { cpuUs: 59, p99Us: 2900 }),
    run(1, 'fastify', 90, { cpuUs: 70, p99Us: 5000 }),
    run(2, 'baseline', 100, { cpuUs: 40, p99Us: 1000 }),
    run(2, 'service', 80, { cpuUs: 62, p99Us: 3100 }),
    run(2, 'fastify', 90, { cpuUs: 70, p99Us: 5000 }),
  ];
  const goal = { cpuRatio: 1.5, p99Ratio: 3 };
  const s = summarise({ scenario, runs }, ['baseline', 'service', 'fastify'], { goal, judged: ['service'] });
  assert.deepEqual(s.targets[1].goal, goal);
  assert.equal(s.targets[2].goal, undefined);
  const table = scenarioTable(s);
  // Medians 1.5125 (> 1.5) and 3.0 (≤ 3).
  assert.match(table, /target \(issue 13\) service: CPU ratio 1\.51 \(1\.48–1\.55\) ≤ 1\.5 FAIL; p99 ratio 3\.00 \(2\.90–3\.10\) ≤ 3 pass/);
  assert.doesNotMatch(table, /target \(issue 13\) fastify/);
  const md = markdownTable([s]);
  assert.match(md, /\| service \| 60\.5 \| 1\.51 \(1\.48–1\.55\) \| ≤ 1\.5 FAIL \|/);
  assert.match(md, /\| fastify \| 70\.0 \| 1\.75 \| — \|/);
});

test('spread is the median and min–max of the finite values; formatSpread shows the range only when rounds differ', () => {
  assert.deepEqual(spread([3, 1, NaN, 2]), { median: 2, min: 1, max: 3 });
  assert.deepEqual(spread([4, 1]), { median: 2.5, min: 1, max: 4 });
  assert.equal(spread([NaN]), undefined);
  assert.equal(formatSpread({ median: 1.234, min: 1.2, max: 1.3 }), '1.23 (1.20–1.30)');
  assert.equal(formatSpread({ median: 1.001, min: 1.0, max: 1.004 }), '1.00');
  assert.equal(formatSpread(undefined), 'n/a');
});

test('memoryLine judges peak RSS against 150 MiB and flags growth across rounds', () => {
  const MiB = 1024 * 1024;
  assert.equal(
    memoryLine('service', 125 * MiB, [120 * MiB, 122 * MiB, 121 * MiB], true),
    'service: peak RSS (VmHWM) over the whole run 125 MiB (≤ 150 MiB: pass); RSS after each round 120 MiB, 122 MiB, 121 MiB: no growth (+1 MiB)',
  );
  assert.match(memoryLine('service', 151 * MiB, [120 * MiB, 140 * MiB], true), /\(≤ 150 MiB: FAIL\).*GROWTH: \+20 MiB from the first round to the last/);
  assert.match(
    memoryLine('baseline', 60 * MiB, [60 * MiB], false),
    /^baseline: peak RSS \(VmHWM\) over the whole run 60 MiB; RSS after each round 60 MiB: growth not judged \(one round\)$/,
  );
});
