import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { loggerOptions } from '../../src/logger.ts';
import { buildTestApp, fixedClock, logCapture } from '../helpers/app.ts';
import { exchange, listening } from '../helpers/raw-http.ts';

// 15 s into a minute: the window resets in 45 s.
const at = () => fixedClock(new Date('2026-03-01T10:00:15Z'));

/** An app whose failed-authentication limit is 3 per minute, with TRUST_PROXY as given. */
async function limited(t: TestContext, trustProxy?: string) {
  const logs = logCapture();
  const env: Record<string, string> = { AUTH_FAILURE_LIMIT_PER_MINUTE: '3', ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }) };
  const built = await buildTestApp(t, { clock: at(), env, logger: { ...(loggerOptions(loadConfig({})) as object), stream: logs.stream } });
  /** A request from TCP peer `peer`, with X-Forwarded-For `forwarded` when given, and a wrong key unless `key`. */
  const send = (peer: string, forwarded?: string, key = false) =>
    built.app.inject({
      method: 'GET',
      url: '/v1/pets',
      remoteAddress: peer,
      headers: {
        ...(forwarded === undefined ? {} : { 'x-forwarded-for': forwarded }),
        authorization: key ? built.auth.authorization : 'Bearer pst_wrong_guess',
      },
    });
  const loggedIps = () =>
    logs
      .lines()
      .filter((l) => l.msg === 'request')
      .map((l) => l.ip);
  return { ...built, send, loggedIps };
}

describe('TRUST_PROXY: whose address the failed-authentication limit and the logs use', () => {
  test('off by default: a spoofed X-Forwarded-For is ignored, the TCP peer is the client', async (t) => {
    const { send, loggedIps } = await limited(t);
    for (let i = 0; i < 3; i++) assert.equal((await send('203.0.113.7', `198.51.100.${i}`)).statusCode, 401);
    const res = await send('203.0.113.7', '198.51.100.99');
    assert.equal(res.statusCode, 429, 'a new X-Forwarded-For does not make a new client');
    // A valid generated key still passes: the limit counts failures, it does not lock out the keys of an address (issue 34 §5).
    assert.equal((await send('203.0.113.7', '198.51.100.99', true)).statusCode, 200, 'a valid key still works from the limited address');
    assert.deepEqual(new Set(loggedIps()), new Set(['203.0.113.7']));
  });

  test('through a trusted proxy, two clients are limited separately, and the log names each', async (t) => {
    const { send, loggedIps } = await limited(t, '10.0.0.0/8');
    const proxy = '10.1.2.3';
    for (let i = 0; i < 3; i++) assert.equal((await send(proxy, '198.51.100.1')).statusCode, 401);
    assert.equal((await send(proxy, '198.51.100.1')).statusCode, 429, 'client 1 used up its budget');
    assert.equal((await send(proxy, '198.51.100.2')).statusCode, 401, 'client 2 still has its own');
    assert.equal((await send(proxy, '198.51.100.2', true)).statusCode, 200);
    assert.deepEqual([...new Set(loggedIps())], ['198.51.100.1', '198.51.100.2']);
  });

  test('a client cannot escape through the trusted proxy by prepending addresses of its own', async (t) => {
    const { send, loggedIps } = await limited(t, '10.1.2.3');
    for (let i = 0; i < 3; i++) assert.equal((await send('10.1.2.3', `192.0.2.${i}, 198.51.100.1`)).statusCode, 401);
    assert.equal((await send('10.1.2.3', '192.0.2.77, 198.51.100.1')).statusCode, 429);
    assert.deepEqual(new Set(loggedIps()), new Set(['198.51.100.1']), 'the address the proxy saw, not the ones the client wrote');
  });

  test('a peer that is not a trusted proxy cannot name a client', async (t) => {
    const { send, loggedIps } = await limited(t, '10.0.0.0/8');
    for (let i = 0; i < 3; i++) assert.equal((await send('192.0.2.50', `198.51.100.${i}`)).statusCode, 401);
    assert.equal((await send('192.0.2.50', '198.51.100.200')).statusCode, 429);
    assert.deepEqual(new Set(loggedIps()), new Set(['192.0.2.50']));
  });

  test('a hop count trusts that many hops from the right', async (t) => {
    const { send, loggedIps } = await limited(t, '2');
    // client → proxy A (appends the client) → proxy B (appends A) → service (peer B)
    for (let i = 0; i < 3; i++) assert.equal((await send('10.0.0.2', `192.0.2.${i}, 198.51.100.1, 10.0.0.1`)).statusCode, 401);
    assert.equal((await send('10.0.0.2', '198.51.100.1, 10.0.0.1')).statusCode, 429);
    assert.equal((await send('10.0.0.2', '198.51.100.2, 10.0.0.1')).statusCode, 401);
    assert.deepEqual([...new Set(loggedIps())], ['198.51.100.1', '198.51.100.2']);
  });

  test('IPv6 clients are counted per /64: addresses of one network share a budget', async (t) => {
    const { send } = await limited(t, 'loopback');
    for (let i = 1; i <= 3; i++) assert.equal((await send('::1', `2001:db8:7:7::${i}`)).statusCode, 401);
    assert.equal((await send('::1', '2001:db8:7:7:ffff:1:2:3')).statusCode, 429, 'another address of the same /64');
    assert.equal((await send('::1', '2001:db8:7:8::1')).statusCode, 401, 'the next /64 is another client');
  });

  test('over a real connection: behind a proxy on loopback, X-Forwarded-For names the client', async (t) => {
    const { port, auth } = await listening(t, { env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'loopback' } });
    const get = async (forwarded: string, authorization: string) =>
      (
        await exchange(
          port,
          `GET /v1/pets HTTP/1.1\r\nHost: api.example\r\nX-Forwarded-For: ${forwarded}\r\nAuthorization: ${authorization}\r\nConnection: close\r\n\r\n`,
        )
      ).data;
    for (let i = 0; i < 2; i++) assert.match(await get('198.51.100.1', 'Bearer pst_wrong'), /^HTTP\/1\.1 401 /);
    assert.match(await get('198.51.100.1', 'Bearer pst_wrong'), /^HTTP\/1\.1 429 /);
    assert.match(await get('198.51.100.1', auth.authorization), /^HTTP\/1\.1 200 /, 'a valid key from the limited client still works');
    assert.match(await get('198.51.100.2', auth.authorization), /^HTTP\/1\.1 200 /);
  });
});

describe('failed-authentication counts are observable', () => {
  test('/metrics shows how many addresses the limit counts', async (t) => {
    const { app, send } = await limited(t);
    await send('203.0.113.1');
    await send('203.0.113.2');
    await send('2001:db8::1');
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /^petstore_auth_failure_addresses 3$/m);
    assert.match(metrics, /^petstore_auth_failure_addresses_evicted_total 0$/m);
  });
});

describe('duplicate Authorization header fields', () => {
  test('are refused with 400 bad_request before any key is looked at, and do not count as a guess', async (t) => {
    const { app, auth } = await buildTestApp(t, { env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '1' } });
    for (const both of [
      [auth.authorization, 'Bearer pst_other'],
      ['Bearer pst_other', auth.authorization],
      [auth.authorization, auth.authorization],
    ]) {
      const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: { authorization: both } as never });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), {
        code: 'bad_request',
        message: 'a request must have at most one Authorization header field; this one has several',
        status: 400,
      });
    }
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).statusCode, 200);
  });

  test('over a real connection too', async (t) => {
    const { port, auth } = await listening(t);
    const { data } = await exchange(
      port,
      `GET /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: ${auth.authorization}\r\nAuthorization: Bearer pst_x\r\nConnection: close\r\n\r\n`,
    );
    assert.match(data, /^HTTP\/1\.1 400 [\s\S]*"code":"bad_request"/);
  });
});
