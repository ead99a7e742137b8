import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { jsonStructureProblem, MAX_JSON_DEPTH } from '../../src/http/edge/json-body.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

const MiB = 1024 * 1024;

async function listening(t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}): Promise<TestApp & { port: number }> {
  const built = await buildTestApp(t, { env: { RATE_LIMIT_PER_MINUTE: '0', ...env } });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  return { ...built, port: (built.app.server.address() as { port: number }).port };
}

/** Writes a raw request; resolves with everything the server sent once it closes or goes quiet. */
function rawClient(port: number): { socket: Socket; received: () => string; closed: Promise<unknown> } {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('latin1');
  let data = '';
  socket.on('data', (d: string) => (data += d));
  socket.on('error', () => {});
  return { socket, received: () => data, closed: once(socket, 'close').catch(() => {}) };
}

/** Sends `bytes` every 200 ms until the server closes the connection; returns how long that took. */
async function trickleUntilDropped(c: ReturnType<typeof rawClient>, bytes: string, maxMs: number): Promise<number> {
  const start = Date.now();
  const timer = setInterval(() => c.socket.writable && c.socket.write(bytes), 200);
  await Promise.race([c.closed, sleep(maxMs)]);
  clearInterval(timer);
  assert.ok(c.socket.destroyed || c.socket.readableEnded, 'connection closed by the server');
  return Date.now() - start;
}

describe('body limit', () => {
  for (const framing of ['content-length', 'chunked'] as const) {
    test(`a 10 MiB body (${framing}) is answered 413 before it is read, without memory growth`, async (t) => {
      const { port, auth } = await listening(t);
      const c = rawClient(port);
      const length = framing === 'content-length' ? `Content-Length: ${10 * MiB}` : 'Transfer-Encoding: chunked';
      c.socket.write(`POST /v1/pets HTTP/1.1\r\nHost: x\r\n${length}\r\nContent-Type: application/json\r\nAuthorization: ${auth.authorization}\r\n\r\n`);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const before = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
      let sent = 0;
      let sentAtAnswer = -1;
      // A misbehaving client keeps sending the whole 10 MiB whatever the server says.
      while (sent < 10 * MiB && !c.socket.destroyed) {
        if (sentAtAnswer < 0 && c.received().length > 0) sentAtAnswer = sent;
        const frame = framing === 'chunked' ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
        if (!c.socket.write(frame)) await Promise.race([once(c.socket, 'drain').catch(() => {}), c.closed, sleep(2000)]);
        sent += chunk.length;
      }
      await Promise.race([c.closed, sleep(500)]);
      if (sentAtAnswer < 0) sentAtAnswer = sent;
      c.socket.destroy();
      assert.match(c.received(), /^HTTP\/1\.1 413 /);
      assert.match(c.received(), /"code":"payload_too_large"/);
      assert.ok(sentAtAnswer < 4 * MiB, `answered after ${sentAtAnswer} bytes of 10 MiB`);
      const growth = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - before;
      assert.ok(growth < 8 * MiB, `memory grew by ${(growth / MiB).toFixed(1)} MiB`);
    });
  }
});

describe('JSON nesting', () => {
  test('a body nested deeper than 32 levels is refused with 400 before parsing', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    const res = await app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: `{"name":${deep},"categoryId":1}`,
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { code: 'bad_request', message: 'request body nests objects or arrays deeper than 32 levels', status: 400 });
    const huge = await app.inject({ method: 'POST', url: '/v1/pets', headers: { ...auth, 'content-type': 'application/json' }, payload: '['.repeat(60_000) });
    assert.equal(huge.statusCode, 400);
  });

  test('counts only structure: brackets inside strings and nesting up to the limit pass', () => {
    const ok = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    assert.equal(jsonStructureProblem(ok, MAX_JSON_DEPTH), undefined);
    assert.equal(jsonStructureProblem(`["${'['.repeat(100)}", "\\"${'{'.repeat(100)}"]`, MAX_JSON_DEPTH), undefined);
    assert.equal(jsonStructureProblem(`[${ok}]`, MAX_JSON_DEPTH)?.code, 'bad_request');
  });

  test('ordinary bodies and prototype-poisoning checks still work', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const ok = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: '[{"x"}]', categoryId: 1 } });
    assert.equal(ok.statusCode, 201);
    const poisoned = await app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"name":"a","categoryId":1,"__proto__":{"x":1}}',
    });
    assert.equal(poisoned.statusCode, 400);
    assert.equal(poisoned.json().code, 'invalid_json');
  });
});

describe('strict JSON bodies', () => {
  const post = (app: TestApp['app'], auth: TestApp['auth'], payload: Buffer | string, url = '/v1/pets', method: 'POST' | 'PATCH' = 'POST') =>
    app.inject({ method, url, headers: { ...auth, 'content-type': 'application/json' }, payload });

  test('a byte-order mark is refused with 400 invalid_json', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const res = await post(app, auth, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Rex","categoryId":1}')]));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'invalid_json');
    assert.match(res.json().message, /byte-order mark/);
  });

  test('bytes that are not UTF-8 are refused with 400 invalid_json, not read as U+FFFD', async (t) => {
    const { app, auth } = await buildTestApp(t);
    for (const bad of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const res = await post(app, auth, Buffer.concat([Buffer.from('{"name":"R'), Buffer.from(bad), Buffer.from('x","categoryId":1}')]));
      assert.equal(res.statusCode, 400, `bytes ${bad.map((b) => b.toString(16)).join(' ')}`);
      assert.deepEqual(res.json(), { code: 'invalid_json', message: 'request body is not valid UTF-8', status: 400 });
    }
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).json().length, 0, 'nothing was created');
    const ok = await post(app, auth, Buffer.from('{"name":"Rex 🐕 Ü","categoryId":1}'));
    assert.equal(ok.statusCode, 201);
    assert.equal(ok.json().name, 'Rex 🐕 Ü');
  });

  test('a member named twice in one object is refused with 400 invalid_json naming it, however it is spelled', async (t) => {
    const { app, auth } = await buildTestApp(t);
    for (const body of [
      '{"name":"Rex","categoryId":1,"name":"Max"}',
      '{"name":"Rex","categoryId":1,"categoryId":2}',
      '{"name":"Rex","\\u006eame":"Max","categoryId":1}',
    ]) {
      const res = await post(app, auth, body);
      assert.equal(res.statusCode, 400, body);
      assert.equal(res.json().code, 'invalid_json', body);
      assert.match(res.json().message, /the name "(name|categoryId)" occurs twice in one object/, body);
    }
    const patch = await post(app, auth, '{"status":"approved","status":"cancelled"}', '/v1/store/orders/1', 'PATCH');
    assert.equal(patch.json().code, 'invalid_json');
    // A name with an invalid escape is no name: the JSON parser refuses the body.
    const broken = await post(app, auth, '{"\\x":1,"name":"Rex","categoryId":1}');
    assert.equal(broken.json().code, 'invalid_json');
  });

  test('the same name in different objects, or as a value, is fine', () => {
    for (const text of ['[{"a":1},{"a":2}]', '{"a":{"a":{"a":1}},"b":"a"}', '{"a":"\\"a\\":1","b":["a","a"]}', '{}', '[]', '"a"']) {
      assert.equal(jsonStructureProblem(text, MAX_JSON_DEPTH), undefined, text);
    }
    assert.match(jsonStructureProblem('{"a":{"b":1,"c":{},"b":2}}', MAX_JSON_DEPTH)?.message ?? '', /"b" occurs twice/);
  });
});

describe('timeouts', () => {
  test('the server carries the configured header, request and keep-alive timeouts', async (t) => {
    const { app } = await buildTestApp(t, { env: { HEADERS_TIMEOUT_MS: '4000', REQUEST_TIMEOUT_MS: '9000', KEEP_ALIVE_TIMEOUT_MS: '3000' } });
    assert.equal(app.server.headersTimeout, 4000);
    assert.equal(app.server.requestTimeout, 9000);
    assert.equal(app.server.keepAliveTimeout, 3000);
    // Socket inactivity (Fastify's connectionTimeout): the request deadline plus two 1 s sweeps,
    // so a stalled request meets its 408 before its socket is dropped for silence.
    assert.equal(app.server.timeout, 11_000);
  });

  test('rejects HEADERS_TIMEOUT_MS above REQUEST_TIMEOUT_MS', async (t) => {
    await assert.rejects(buildTestApp(t, { env: { HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' } }), /HEADERS_TIMEOUT_MS/);
  });

  test('a client trickling its headers is dropped within seconds', async (t) => {
    const { port } = await listening(t, { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' });
    const c = rawClient(port);
    c.socket.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n');
    const took = await trickleUntilDropped(c, 'X-Slow: y\r\n', 5000);
    assert.ok(took < 3500, `dropped after ${took} ms`);
    assert.match(c.received(), /^HTTP\/1\.1 408 /);
    assert.match(c.received(), /\r\n\r\n\{"code":"request_timeout","message":"[^"]+","status":408\}$/);
  });

  test('a client trickling its body is dropped within seconds', async (t) => {
    const { port, auth } = await listening(t, { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '1500' });
    const c = rawClient(port);
    c.socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nAuthorization: ${auth.authorization}\r\n\r\n{`,
    );
    const took = await trickleUntilDropped(c, ' ', 6000);
    assert.ok(took < 4000, `dropped after ${took} ms`);
  });

  test('stays responsive while 1,000 slow connections trickle bytes', async (t) => {
    const { port, auth } = await listening(t);
    const slow: Socket[] = [];
    t.after(() => {
      for (const s of slow) s.destroy();
    });
    for (let i = 0; i < 1000; i++) {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => {});
      s.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n');
      slow.push(s);
    }
    await Promise.all(slow.map((s) => (s.connecting ? once(s, 'connect') : undefined)));
    let i = 0;
    const trickle = setInterval(() => {
      for (let k = 0; k < 100; k++) {
        const s = slow[i++ % slow.length];
        if (s.writable) s.write('X-Slow: y\r\n');
      }
    }, 50);
    t.after(() => clearInterval(trickle));
    const durations: number[] = [];
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline) {
      const start = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: auth });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      durations.push(performance.now() - start);
      // A probe every 10 ms or so (well over the 20 the bound needs): what is measured is how fast
      // the service answers beside the slow connections, not how many requests a tight loop adds.
      await sleep(10);
    }
    clearInterval(trickle);
    const open = slow.filter((s) => !s.destroyed).length;
    for (const s of slow) s.destroy();
    durations.sort((a, b) => a - b);
    assert.ok(durations.length >= 20, `only ${durations.length} requests answered in 3 s`);
    assert.ok(durations[Math.floor(durations.length * 0.95)] < 250, `p95 ${durations[Math.floor(durations.length * 0.95)].toFixed(1)} ms`);
    assert.ok(open > 900, `the slow connections were open during the test (${open})`);
  });
});
