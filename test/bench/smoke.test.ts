// The benchmark harness reports figures and is not part of the build's verdict, but it must keep
// running: this drives the smoke mode on two scenarios (≈ 2 s of load) and checks its report.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

test('npm run bench -- --smoke --floor seeds, serves, loads every server and prints a table per scenario', { timeout: 60_000 }, async () => {
  const child = spawn(process.execPath, ['bench/run.ts', '--smoke', '--floor', '--scenarios', 'list20,get,create'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, `bench exited with ${code}:\n${err}`);
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
