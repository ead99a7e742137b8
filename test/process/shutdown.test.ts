import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { BOOTSTRAP_KEY, startServer } from '../helpers/server.ts';

test('SIGTERM lets an in-flight request finish, refuses new connections, closes the database and exits 0', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-shutdown-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, SHUTDOWN_TIMEOUT_MS: '10000' });
  t.after(() => server.proc.kill('SIGKILL'));

  // A client uploading its body slowly: headers and half the body now, the rest after SIGTERM.
  const body = JSON.stringify({ name: 'Slowpoke', categoryId: 1 });
  const socket = connect(server.port, '127.0.0.1');
  socket.setEncoding('utf8');
  let response = '';
  socket.on('data', (d: string) => (response += d));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${BOOTSTRAP_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
      body.slice(0, 10),
  );
  await sleep(300);

  server.proc.kill('SIGTERM');
  await sleep(500);
  assert.match(server.output(), /shutting down/);
  assert.equal(server.proc.exitCode, null, 'the process waits for the in-flight request');
  await assert.rejects(fetch(`${server.url}/healthz`), 'no new connections are accepted');

  socket.write(body.slice(10));
  await ended;
  assert.match(response, /^HTTP\/1\.1 201 Created\r\n/);
  assert.match(response, /"name":"Slowpoke"/);
  const code = await server.exited;
  assert.equal(code, 0, server.output());
  assert.match(server.output(), /shut down cleanly/);
});
