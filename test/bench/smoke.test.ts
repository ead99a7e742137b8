// The benchmark harness reports figures and is not part of the build's verdict, but it must keep
// running: this drives the smoke mode (one after the other, and --paired) for half a second per run and checks its reports.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { SCENARIO_COLUMNS } from '../../bench/report.ts';

/** Runs bench/run.ts to the end; fails the test unless it exits 0. Tables on out, progress on err. */
async function bench(...args: string[]): Promise<{ out: string; err: string }> {
  const child = spawn(process.execPath, ['bench/run.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  // 'close', not 'exit': the tables are written last, and 'exit' can come before they have been read.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  assert.equal(code, 0, `bench exited with ${code}:\n${err}`);
  return { out, err };
}

type Row = Record<(typeof SCENARIO_COLUMNS)[number], string>;

/** The scenario's table as rows keyed by column header (cells are separated by two or more spaces). */
function table(out: string, name: string): { text: string; row(target: string): Row } {
  const text = out
    .split('\n\n')
    .map((b) => b.trim())
    .find((b) => b.startsWith(`${name}:`));
  assert.ok(text, `no table for ${name} in:\n${out}`);
  const lines = text.split('\n').map((l) => l.trim().split(/\s{2,}/));
  assert.deepEqual(lines[1], [...SCENARIO_COLUMNS], `header of ${name}`);
  return {
    text,
    row(target) {
      const cells = lines.find((l) => l[0] === target);
      assert.ok(cells, `no ${target} row for ${name}:\n${text}`);
      assert.equal(cells.length, SCENARIO_COLUMNS.length, `${target} row of ${name} has a cell per column: ${cells.join(' | ')}`);
      return Object.fromEntries(SCENARIO_COLUMNS.map((c, i) => [c, cells[i]])) as Row;
    },
  };
}

const RATIO = /^\d+\.\d\d( \(\d+\.\d\d–\d+\.\d\d\))?\*?$/;
const BUSY = /^\d+ %( \(\d+–\d+\))?$/;

/** A row whose every figure is there and numeric: CPU per request and core load included. */
function assertFigures(row: Row, where: string): void {
  assert.match(row['CPU µs/req'], /^\d+\.\d$/, `CPU µs/req of ${where}`);
  assert.ok(Number(row['CPU µs/req']) > 0, `CPU µs/req of ${where} is positive`);
  assert.match(row['stat µs/req'], /^\d+\.\d$/, `stat µs/req of ${where}`);
  assert.match(row['CPU ratio'], RATIO, `CPU ratio of ${where}`);
  assert.match(row['req/s'], /^[\d,]+$/);
  assert.match(row.ratio, RATIO, `throughput ratio of ${where}`);
  assert.match(row.p50, /^[\d.]+ ms$/);
  assert.match(row.p99, /^[\d.]+ ms$/);
  assert.match(row['p99 ratio'], RATIO);
  assert.equal(row.errors, '0', `errors of ${where}`);
  assert.match(row['server core'], BUSY, `server core busy of ${where}`);
  assert.match(row['load core'], BUSY, `load core busy of ${where}`);
  assert.match(row['peak RSS'], /^\d+ MiB$/);
}

test('npm run bench -- --smoke --floor seeds, serves, loads every server and prints a table per scenario with CPU per request and core load', {
  timeout: 60_000,
}, async () => {
  const { out, err } = await bench('--smoke', '--floor', '--scenarios', 'list20,get,create');
  // The service runs as npm start runs it.
  assert.match(err, /services at LOG_LEVEL=info, rate limits on \(1,000,000\/min\)/);
  for (const name of ['list20', 'get', 'create']) {
    const t = table(out, name);
    for (const target of ['baseline', 'service', 'fastify']) assertFigures(t.row(target), `${target} in ${name}`);
    // The targets are judged for the service, not for the reference servers.
    assert.match(t.text, /^\s*target \(issue 13\) service: CPU ratio \S+.* ≤ [\d.]+ (pass|FAIL); p99 ratio .* ≤ 3 (pass|FAIL)$/m);
    assert.doesNotMatch(t.text, /target \(issue 13\) fastify/);
  }
  assert.match(out, /^service: peak RSS \(VmHWM\) over the whole run \d+ MiB \(≤ 150 MiB: (pass|FAIL)\); RSS after each round \d+ MiB/m);
  assert.match(out, /^CPU µs\/req: the server process's time on CPU \(schedstat/m);
  assert.match(out, /\| `POST \/v1\/pets` \| service \| [\d.]+ \| [\d.]+ \| ≤ 2\.5 (pass|FAIL) \|/);
});

test('npm run bench -- --smoke --paired loads the baseline beside each server and reports every pairing with its CPU figures', {
  timeout: 60_000,
}, async () => {
  const { out, err } = await bench('--smoke', '--paired', '--floor', '--scenarios', 'unauth');
  // One baseline run beside each of the other servers, each logged with its partner.
  assert.match(err, /round 1\/1 unauth\s+baseline\s+[\d,]+ req\/s\s+errors 0 \(with service\)/);
  assert.match(err, /round 1\/1 unauth\s+baseline\s+[\d,]+ req\/s\s+errors 0 \(with fastify\)/);
  assert.match(err, /round 1\/1 unauth\s+service\s+[\d,]+ req\/s\s+errors 0 \(with baseline\)/);
  assert.match(err, /paired \(each server loaded at the same time as the baseline/);
  const t = table(out, 'unauth');
  assertFigures(t.row('service'), 'service, paired');
  assertFigures(t.row('fastify'), 'fastify, paired');
});
