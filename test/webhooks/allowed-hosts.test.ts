// Issue 26, item 6: WEBHOOK_ALLOWED_HOSTS opens a port of a host, not the host (a bare host: 80
// and 443 only), at registration and at every connection; and the delivery log tells a refused or
// reset connection only as "connection failed", so it cannot serve as a port scanner. No storage
// rule is involved: one engine.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.ts';
import { openTestStorage } from '../helpers/engines.ts';
import { freePort } from '../helpers/ports.ts';
import { eventually, startReceiver } from '../helpers/receiver.ts';
import { TEST_ENV, webhookTest } from './helpers.ts';

const NAMES: Record<string, string> = { 'hooks.test': '10.9.9.9', 'other.test': '10.9.9.8' };
const resolve = async (host: string) => [{ address: NAMES[host] ?? '127.0.0.1', family: 4 }];

test('registration: a bare host allows ports 80 and 443 only; host:port that port; host:* every port', async (t) => {
  const { app, auth } = await buildTestApp(t, {
    env: { ...TEST_ENV, WEBHOOK_ALLOWED_HOSTS: 'hooks.test, other.test:8443, 10.1.1.1:*, [fd00::1]:9000' },
    webhooks: { resolve },
  });
  const register = async (url: string) => {
    const res = await app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url } });
    return res.statusCode === 201 ? 201 : `${res.statusCode} ${res.json().code}`;
  };
  const cases: [string, number | string][] = [
    ['https://hooks.test/', 201],
    ['https://hooks.test:443/', 201],
    ['http://hooks.test/', 201],
    ['https://hooks.test:8443/', '400 webhook_url_not_allowed'],
    ['https://hooks.test:22/', '400 webhook_url_not_allowed'],
    ['https://10.9.9.9:8080/', '400 webhook_url_not_allowed'],
    ['https://other.test:8443/', 201],
    ['https://other.test/', '400 webhook_url_not_allowed'],
    ['https://10.1.1.1:6379/', 201],
    ['https://[fd00::1]:9000/', 201],
    ['https://[fd00::1]/', '400 webhook_url_not_allowed'],
  ];
  assert.deepEqual(await Promise.all(cases.map(async ([url]) => [url, await register(url)])), cases);
});

test('delivery: a port no longer allowed is refused at connection, before anything is sent', async (t) => {
  const storage = await openTestStorage(t, 'sqlite');
  const receiver = await startReceiver(t);
  const before = await buildTestApp(t, { storage, env: TEST_ENV, webhooks: { pollMs: 60_000 } });
  const res = await before.app.inject({ method: 'POST', url: '/v1/webhooks', headers: before.auth, payload: { url: receiver.url } });
  assert.equal(res.statusCode, 201);
  await before.app.close();
  // The host stays allowed, on another port only.
  const after = await buildTestApp(t, { storage, env: { ...TEST_ENV, WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port + 1}` }, webhooks: { pollMs: 10 } });
  await after.app.inject({ method: 'POST', url: '/v1/pets', headers: after.auth, payload: { name: 'Rex', categoryId: 1 } });
  const entry = await eventually(async () => {
    const [d] = (await after.app.inject({ method: 'GET', url: `/v1/webhooks/${res.json().id}/deliveries`, headers: after.auth })).json();
    return d?.status === 'failed' ? d : undefined;
  });
  assert.equal(entry.error, 'refused to connect to 127.0.0.1: 127.0.0.1 (loopback) is not a public address');
  assert.equal(receiver.received.length, 0);
});

test('a refused connection and a reset one are both logged as "connection failed", nothing more', async (t) => {
  const closedPort = await freePort();
  // Accepts, then resets every connection.
  const resetting = createServer((socket) => socket.resetAndDestroy());
  resetting.listen(0, '127.0.0.1');
  await once(resetting, 'listening');
  t.after(() => resetting.close());
  const resetPort = (resetting.address() as { port: number }).port;
  const w = await webhookTest(t, 'sqlite', { env: { WEBHOOK_RETRY_SCHEDULE_MS: '0', WEBHOOK_TIMEOUT_MS: '10000' } });
  const refused = await w.register({ url: `http://127.0.0.1:${closedPort}/hooks` });
  const reset = await w.register({ url: `http://127.0.0.1:${resetPort}/hooks` });
  await w.createPet();
  for (const hook of [refused, reset]) {
    const entry = await eventually(async () => {
      const [d] = await w.deliveries(hook.id);
      return d?.status === 'failed' ? d : undefined;
    });
    assert.deepEqual([entry.httpStatus, entry.error], [null, 'connection failed'], hook.url);
  }
});
