import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test, type TestContext } from 'node:test';
import { freePort, startService } from '../helpers/process.ts';

const KEY = 'shutdown-test-key-0123456789abcdef';

/** The real service on a fresh SQLite file, killed and cleaned up when the test ends. */
async function start(t: TestContext, env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-shutdown-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const svc = await startService({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, PETSTORE_API_KEYS: KEY, LOG_LEVEL: 'info', ...env });
  t.after(() => svc.stop('SIGKILL'));
  return { svc, exited: once(svc.child, 'exit'), port: Number(new URL(svc.base).port) };
}

test('SIGTERM lets an in-flight request finish, refuses new connections, closes the database and exits 0', async (t) => {
  const { svc, exited, port } = await start(t, { SHUTDOWN_TIMEOUT_MS: '10000' });

  // A client uploading its body slowly: headers and part of the body now, the rest after SIGTERM.
  const body = JSON.stringify({ name: 'Slowpoke', categoryId: 1 });
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let response = '';
  socket.on('data', (d: string) => (response += d));
  const closed = once(socket, 'close');
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
      body.slice(0, 10),
  );
  await sleep(300);

  svc.child.kill('SIGTERM');
  await sleep(500);
  assert.match(svc.stdout(), /shutting down/);
  assert.equal(svc.child.exitCode, null, 'the process waits for the in-flight request');
  await assert.rejects(fetch(`${svc.base}/healthz`), 'no new connections are accepted');

  socket.write(body.slice(10));
  await closed;
  assert.match(response, /^HTTP\/1\.1 201 Created\r\n/);
  assert.match(response, /"name":"Slowpoke"/);
  const [code] = await exited;
  assert.equal(code, 0, svc.stdout() + svc.stderr());
  assert.match(svc.stdout(), /shut down cleanly/);
});

test('past SHUTDOWN_TIMEOUT_MS a request that never finishes is cut off and the exit code is 1', async (t) => {
  const { svc, exited, port } = await start(t, { SHUTDOWN_TIMEOUT_MS: '500' });
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const closed = once(socket, 'close');
  // Announces 100 bytes of body and sends 1: the request stays in flight until it is cut off.
  socket.write(`POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
  await sleep(300);
  const killedAt = Date.now();
  svc.child.kill('SIGTERM');
  const [code] = await exited;
  await closed;
  assert.equal(code, 1);
  assert.ok(Date.now() - killedAt < 3000, `exited ${Date.now() - killedAt} ms after SIGTERM`);
  assert.match(svc.stdout(), /shutdown timed out/);
});

test('with METRICS_PORT the process serves health and metrics there, not on PORT, and SIGINT exits 0', async (t) => {
  const metricsPort = await freePort();
  const { svc } = await start(t, { METRICS_PORT: String(metricsPort) });
  const ops = `http://127.0.0.1:${metricsPort}`;
  assert.equal((await fetch(`${svc.base}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } })).status, 200);
  for (const path of ['/healthz', '/readyz', '/metrics']) {
    assert.equal((await fetch(`${svc.base}${path}`)).status, 404, `PORT ${path}`);
    assert.equal((await fetch(`${ops}${path}`)).status, 200, `METRICS_PORT ${path}`);
  }
  const metrics = await (await fetch(`${ops}/metrics`)).text();
  assert.match(metrics, /^petstore_http_requests_total\{method="GET",route="\/v1\/pets",status="200"\} 1$/m);
  assert.match(metrics, /^process_resident_memory_bytes \d+/m);
  assert.equal(await svc.stop('SIGINT'), 0);
});
