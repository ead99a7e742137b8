// The benchmark harness reports figures and is not part of the build's verdict, but it must keep
// running: this drives the smoke mode (one after the other, and --paired) for a few seconds and checks its reports.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

/** Runs bench/run.ts to the end; fails the test unless it exits 0. Tables on out, progress on err. */
async function bench(...args: string[]): Promise<{ out: string; err: string }> {
  const child = spawn(process.execPath, ['bench/run.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, `bench exited with ${code}:\n${err}`);
  return { out, err };
}

test('npm run bench -- --smoke --floor seeds, serves, loads every server and prints a table per scenario', { timeout: 60_000 }, async () => {
  const { out } = await bench('--smoke', '--floor', '--scenarios', 'list20,get,create');
  for (const name of ['list20', 'get', 'create']) {
    const table = out.split('\n\n').map((b) => b.trim()).find((b) => b.startsWith(`${name}:`));
    assert.ok(table, `no table for ${name} in:\n${out}`);
    const service = table.split('\n').find((l) => l.trimStart().startsWith('service '));
    assert.ok(service, `no service row for ${name}`);
    // req/s, p50, p99, errors = 0, ratio, p99 ratio, peak RSS in MiB
    assert.match(service, /^\s*service\s+[\d,]+\s+[\d.]+ ms\s+[\d.]+ ms\s+0\s+\d+\.\d\d( \(.*\))?\s+\d+\.\d\d\s+\d+ MiB$/);
    // The plain-Fastify reference answered every request as the service does (0 errors).
    assert.match(table, /^\s*fastify\s+[\d,]+\s+[\d.]+ ms\s+[\d.]+ ms\s+0\s/m, `no fastify row without errors for ${name}`);
  }
  assert.match(out, /\| `POST \/v1\/pets` \|/);
});

test('npm run bench -- --smoke --paired loads the baseline beside each server and reports every pairing', { timeout: 60_000 }, async () => {
  const { out, err } = await bench('--smoke', '--paired', '--floor', '--scenarios', 'unauth');
  // One baseline run beside each of the other servers, each logged with its partner.
  assert.match(err, /round 1\/1 unauth\s+baseline\s+[\d,]+ req\/s\s+errors 0 \(with service\)/);
  assert.match(err, /round 1\/1 unauth\s+baseline\s+[\d,]+ req\/s\s+errors 0 \(with fastify\)/);
  assert.match(err, /round 1\/1 unauth\s+service\s+[\d,]+ req\/s\s+errors 0 \(with baseline\)/);
  assert.match(err, /paired \(each server loaded at the same time as the baseline/);
  const table = out.split('\n\n').map((b) => b.trim()).find((b) => b.startsWith('unauth:'));
  assert.ok(table, `no table for unauth in:\n${out}`);
  assert.match(table, /^\s*service\s+[\d,]+\s+[\d.]+ ms\s+[\d.]+ ms\s+0\s+\d+\.\d\d\s+\d+\.\d\d\s+\d+ MiB$/m);
  assert.match(table, /^\s*fastify\s+[\d,]+\s+[\d.]+ ms\s+[\d.]+ ms\s+0\s/m);
});
