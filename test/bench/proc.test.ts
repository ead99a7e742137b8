// How bench/proc.ts reads CPU time and core load from /proc text: pure parsing, checked with made-up lines.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { busyShare, catchesSigint, isNodeProcess, parseCatches, parseCoreTimes, parsePidStat, parseSchedstat, readProcessCpu } from '../../bench/proc.ts';

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

const PROC_STAT = `cpu  10003 26 4917 47510 245 0 433 7 0 0
cpu0 5120 9 2201 24019 48 0 229 2 0 0
cpu1 4883 17 2716 23490 197 0 203 5 0 0
intr 1234 0 0
ctxt 998877
btime 1700000000
`;

test('parseCoreTimes reads each cpuN line by core number and skips the aggregate line', () => {
  const cores = parseCoreTimes(PROC_STAT);
  assert.deepEqual([...cores.keys()], [0, 1]);
  assert.deepEqual(cores.get(1), { user: 4883, nice: 17, system: 2716, idle: 23490, iowait: 197, irq: 0, softirq: 203, steal: 5 });
});

test('parseCoreTimes accepts an old kernel line with only four fields', () => {
  assert.deepEqual(parseCoreTimes('cpu3 1 2 3 4\n').get(3), { user: 1, nice: 2, system: 3, idle: 4, iowait: 0, irq: 0, softirq: 0, steal: 0 });
});

test('busyShare is 1 − (idle + iowait) / total over the interval, steal counted as busy', () => {
  const before = { user: 100, nice: 0, system: 50, idle: 800, iowait: 50, irq: 0, softirq: 0, steal: 0 };
  // +60 user, +20 system, +10 softirq, +5 steal, +4 idle, +1 iowait: 100 ticks, 5 of them free.
  const after = { user: 160, nice: 0, system: 70, idle: 804, iowait: 51, irq: 0, softirq: 10, steal: 5 };
  close(busyShare(before, after), 0.95);
  close(busyShare(before, { ...before, idle: before.idle + 100 }), 0);
  assert.ok(Number.isNaN(busyShare(before, before)), 'no ticks elapsed: unknown, not 0 or 1');
});

test('parsePidStat counts fields from the last ")" so a command name with spaces and parentheses cannot shift them', () => {
  // Fields 3… after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
  const line = '4242 (we (ird) name) x) S 1 4242 4242 0 -1 4194304 2815 0 2 0 1520 37 11 12 20 0 7 0 32363 1015738368 11590\n';
  assert.deepEqual(parsePidStat(line), { comm: 'we (ird) name) x', utime: 1520, stime: 37 });
  assert.deepEqual(parsePidStat('7 (MainThread) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 5 0 0'), { comm: 'MainThread', utime: 3, stime: 4 });
  assert.throws(() => parsePidStat('no parentheses here'));
  assert.throws(() => parsePidStat('1 (short) S 1 2 3'));
});

test('parseSchedstat takes the nanoseconds on CPU, the first of its three fields', () => {
  assert.equal(parseSchedstat('1548731578 170620 13\n'), 1548731578);
  assert.throws(() => parseSchedstat('garbage'));
});

test('readProcessCpu of this very process grows with work done, and both counters agree to a few ticks', { skip: process.platform !== 'linux' }, () => {
  const before = readProcessCpu(process.pid)!;
  // Spin until Node's own counter says 300 ms of CPU were used (wall time would vary with the machine's load).
  const start = process.cpuUsage();
  let x = 0;
  while (process.cpuUsage(start).user < 300_000) x += Math.sqrt(x + 1);
  const after = readProcessCpu(process.pid)!;
  assert.ok(after.schedUs !== undefined && before.schedUs !== undefined, 'schedstat readable');
  const sched = after.schedUs - before.schedUs;
  const stat = after.statUs - before.statUs;
  assert.ok(sched >= 250_000, `used 300 ms of CPU but schedstat moved ${sched} µs`);
  assert.ok(Math.abs(stat - sched) <= 50_000, `utime+stime moved ${stat} µs, schedstat ${sched} µs`);
});

test('isNodeProcess recognises this process as node and another binary as not', { skip: process.platform !== 'linux' }, () => {
  assert.equal(isNodeProcess(process.pid, process.execPath), true);
  assert.equal(isNodeProcess(process.pid, '/bin/sh'), false);
});

test("parseCatches reads a signal's bit in SigCgt: SIGINT (2) is bit 1; SigIgn and SigBlk do not count", () => {
  const status = (cgt: string) => `Name:\twrk\nSigBlk:\t0000000000000002\nSigIgn:\t0000000000000002\nSigCgt:\t${cgt}\nCapInh:\t0000000000000000\n`;
  assert.equal(parseCatches(status('0000000000000002'), 2), true);
  assert.equal(parseCatches(status('0000000180004a02'), 2), true);
  assert.equal(parseCatches(status('0000000000000000'), 2), false, 'ignored or blocked is not caught');
  assert.equal(parseCatches(status('0000000000000001'), 2), false, 'SIGHUP (1) is bit 0');
  assert.equal(parseCatches(status('8000000000000000'), 64), true, 'the 64th signal is the top bit');
  assert.equal(parseCatches('Name:\twrk\n', 2), false, 'no SigCgt line');
});

test('catchesSigint: true once a process has its own SIGINT handler; false for one without, and for one gone', async (t) => {
  const plain = spawn('sleep', ['30']);
  const trapping = spawn('sh', ['-c', "trap 'exit 0' INT; while :; do sleep 1; done"]);
  t.after(() => {
    plain.kill('SIGKILL');
    trapping.kill('SIGKILL');
  });
  const deadline = Date.now() + 10_000;
  while (!catchesSigint(trapping.pid!) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.equal(catchesSigint(trapping.pid!), true);
  assert.equal(catchesSigint(plain.pid!), false);
  assert.equal(catchesSigint(2 ** 22 + 1), false, 'above the largest pid Linux gives');
});
