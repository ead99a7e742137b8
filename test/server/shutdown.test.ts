import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { startService } from '../helpers/process.ts';

const KEY = 'shutdown-test-key-0123456789abcdef';

test('SIGTERM lets an in-flight request finish, refuses new connections, closes the database and exits 0', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-shutdown-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const svc = await startService({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, PETSTORE_API_KEYS: KEY, LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '10000' });
  t.after(() => svc.stop('SIGKILL'));
  const exited = once(svc.child, 'exit');

  // A client uploading its body slowly: headers and part of the body now, the rest after SIGTERM.
  const body = JSON.stringify({ name: 'Slowpoke', categoryId: 1 });
  const { port } = new URL(svc.base);
  const socket = connect(Number(port), '127.0.0.1');
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
