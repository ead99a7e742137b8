// The hot lane (src/http/hot-lane.ts) answers the hottest reads outside Fastify. These tests send
// every request of a corpus to two real listening apps on one database — one with the lane, one
// without — and require the same answer byte for byte (status, every header in order, body), the
// same metrics and the same log lines; and that the lane answered exactly the requests it should,
// leaving every other one to Fastify. On every engine.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { matchLane, parseListQuery } from '../../src/http/hot-lane.ts';
import { Metrics } from '../../src/http/metrics.ts';
import { createApiKey } from '../../src/keys/key.service.ts';
import { SCOPES } from '../../src/keys/key.types.ts';
import { GET_PET_SUNSET } from '../../src/pets/pet.routes.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { fixedClock, logCapture } from '../helpers/app.ts';
import { ENGINES, openSharedStorages, openTestStorage, type Engine } from '../helpers/engines.ts';

interface Raw {
  readonly status: number;
  readonly headers: string[];
  readonly body: string;
}

/** One request over a fresh connection; the raw header list as sent, in order, without Date. */
function send(port: number, method: string, path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        const list: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (res.rawHeaders[i].toLowerCase() !== 'date') list.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        }
        resolve({ status: res.statusCode!, headers: list, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

interface Pair {
  readonly lane: FastifyInstance;
  readonly plain: FastifyInstance;
  readonly lanePort: number;
  readonly plainPort: number;
  readonly laneLogs: ReturnType<typeof logCapture>;
  readonly plainLogs: ReturnType<typeof logCapture>;
  readonly laneMetrics: Metrics;
  readonly plainMetrics: Metrics;
}

const CLOCK_AT = new Date('2026-06-01T12:00:30Z');

async function pair(t: TestContext, storage: Storage, env: Record<string, string> = {}, clock = fixedClock(CLOCK_AT)): Promise<Pair> {
  const build = async (hotLane: boolean) => {
    const logs = logCapture();
    const metrics = new Metrics(storage, { processMetrics: false });
    const app = await buildApp({ config: loadConfig(env), storage, clock, metrics, hotLane, logger: { level: 'info', stream: logs.stream } });
    t.after(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    return { app, logs, metrics, port: (app.server.address() as { port: number }).port };
  };
  const a = await build(true);
  const b = await build(false);
  assert.ok(a.app.hotLane, 'built with the lane');
  assert.equal(b.app.hotLane, undefined, 'built without the lane');
  return { lane: a.app, plain: b.app, lanePort: a.port, plainPort: b.port, laneLogs: a.logs, plainLogs: b.logs, laneMetrics: a.metrics, plainMetrics: b.metrics };
}

/** Sends one request to both apps and requires the same answer; returns it. */
async function same(p: Pair, expectLane: boolean, method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const before = { ...p.lane.hotLane!.counts };
  const a = generated(await send(p.lanePort, method, path, headers));
  const b = generated(await send(p.plainPort, method, path, headers));
  const label = `${method} ${path} ${JSON.stringify(headers)}`;
  assert.equal(a.status, b.status, label);
  assert.deepEqual(a.headers, b.headers, label);
  assert.equal(a.body, b.body, label);
  const answered = p.lane.hotLane!.counts.answered - before.answered;
  const handedOver = p.lane.hotLane!.counts.handedOver - before.handedOver;
  assert.deepEqual({ answered, handedOver }, expectLane ? { answered: 1, handedOver: 0 } : { answered: 0, handedOver: 1 }, `${label}: lane ${expectLane ? 'answers' : 'hands over'}`);
  return a;
}

// A request id the service made up (the request sent none) differs between the two apps.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const generated = (r: Raw): Raw => ({ ...r, headers: r.headers.map((h) => (h.startsWith('x-request-id: ') && UUID.test(h.slice(14)) ? 'x-request-id: <generated>' : h)) });

/** The access lines (the per-request "request" lines) without the timing and process fields. */
function accessLines(logs: ReturnType<typeof logCapture>): Record<string, unknown>[] {
  return logs
    .lines()
    .filter((l) => l.msg === 'request')
    .map(({ time: _t, pid: _p, hostname: _h, durationMs, reqId, ...rest }) => {
      assert.equal(typeof durationMs, 'number');
      return { reqId: UUID.test(reqId as string) ? '<generated>' : reqId, ...rest };
    });
}

/** The request counters and histogram counts (sums and buckets hold durations, which differ). */
async function requestCounts(metrics: Metrics): Promise<string[]> {
  const text = await metrics.registry.metrics();
  return text
    .split('\n')
    .filter((l) => l.startsWith('http_requests_total{') || l.startsWith('http_request_duration_seconds_count{'))
    .sort();
}

const NAMES = ['Rex', 'quote " backslash \\ slash /', 'tab\there, new\nline', 'é ñ ü — “curly” 中文 😀', 'line\u2028para\u2029sep', 'lone surrogate \ud800 end', '<script>&amp;</script>'];

async function seed(storage: Storage): Promise<void> {
  for (let i = 0; i < 45; i++) {
    await storage.pets.create({ name: NAMES[i % NAMES.length], categoryId: 1 + (i % 3), status: (['available', 'pending', 'sold'] as const)[i % 3] });
  }
}

describe('matchLane and parseListQuery (pure)', () => {
  test('recognise exactly the canonical spellings', () => {
    assert.deepEqual(matchLane('/v1/pets'), { op: 'listPets', query: { limit: 20 } });
    assert.deepEqual(matchLane('/v1/pets/42'), { op: 'getPet', id: 42 });
    assert.deepEqual(matchLane('/v1/pets/9007199254740991'), { op: 'getPet', id: 9007199254740991 });
    assert.deepEqual(matchLane('/v1/pets?status=sold&limit=100&cursor=abc.DEF-_9'), { op: 'listPets', query: { limit: 100, status: 'sold', cursor: 'abc.DEF-_9' } });
    assert.deepEqual(parseListQuery('limit=1'), { limit: 1 });
    for (const url of [
      '/v1/pets/',
      '/v1/pets/0',
      '/v1/pets/01',
      '/v1/pets/-1',
      '/v1/pets/1.0',
      '/v1/pets/9007199254740992',
      '/v1/pets/1?x=1',
      '/v1/pets/1/',
      '/v1/pets/%31',
      '/v1/petsx',
      '/v1/pets?',
      '/v1/pets?&',
      '/v1/pets?limit=',
      '/v1/pets?limit=0',
      '/v1/pets?limit=101',
      '/v1/pets?limit=020',
      '/v1/pets?limit=2e1',
      '/v1/pets?limit=20&limit=20',
      '/v1/pets?status=Sold',
      '/v1/pets?status=sold&status=sold',
      '/v1/pets?status=%73old',
      '/v1/pets?cursor=a+b.c',
      '/v1/pets?cursor=abc',
      '/v1/pets?cursor=a%2Eb',
      `/v1/pets?cursor=${'a'.repeat(300)}.${'b'.repeat(212)}`,
      '/v1/pets?limit=5&',
      '/v1/pets?limit=5&extra=1',
      '/v1/pets?=5',
      '/v1/pets#x',
      '/v1/pets;limit=5',
      '/v1/Pets',
      '/v1//pets',
    ]) {
      assert.equal(matchLane(url), undefined, url);
    }
    assert.ok(matchLane(`/v1/pets?cursor=${'a'.repeat(300)}.${'b'.repeat(211)}`), 'a cursor of 512 characters is read');
  });
});

for (const engine of ENGINES) {
  describe(`hot lane against Fastify (${engine})`, () => {
    test('the same answers, logs and metrics for a corpus of requests; the lane answers exactly its share', async (t) => {
      const storage = await openTestStorage(t, engine);
      await seed(storage);
      const p = await pair(t, storage);
      const { key } = await createApiKey(storage.apiKeys, 'all', SCOPES);
      const { key: writer } = await createApiKey(storage.apiKeys, 'no reads', ['pets:write', 'orders:read']);
      const auth = { authorization: `Bearer ${key}`, 'x-request-id': 'diff' };

      // Cursors as the service hands them out.
      const page1 = await same(p, true, 'GET', '/v1/pets?limit=10', auth);
      const next = /<\/v1(\/pets\?[^>]+)>; rel="next"/.exec(page1.headers.find((h) => h.startsWith('link: '))!)![1];
      const filtered = await same(p, true, 'GET', '/v1/pets?status=pending&limit=5', auth);
      const nextFiltered = /<\/v1(\/pets\?[^>]+)>; rel="next"/.exec(filtered.headers.find((h) => h.startsWith('link: '))!)![1];

      const inLane: [string, Record<string, string>][] = [
        ['/v1/pets', auth],
        ['/v1/pets?limit=100', auth],
        ['/v1/pets?limit=1', auth],
        ['/v1/pets?status=sold', auth],
        ['/v1/pets?limit=7&status=available', auth],
        ['/v1/pets?status=available&limit=7', auth],
        [`/v1${next}`, auth],
        [`/v1${nextFiltered}`, auth],
        ['/v1/pets?limit=45', auth],
        ['/v1/pets?limit=44', auth],
        ['/v1/pets/1', auth],
        ['/v1/pets/6', auth],
        ['/v1/pets/45', auth],
        ['/v1/pets/2', { authorization: `bearer  ${key}` }], // scheme case and spaces (RFC 6750), a fresh request id
        ['/v1/pets/3', { authorization: `Bearer ${key}`, 'x-request-id': 'a'.repeat(128) }],
        ['/v1/pets', {}], // 401 without credentials
        ['/v1/pets/3', {}], // 401 of the deprecated operation: deprecation headers too
        ['/v1/pets?limit=5', { 'x-request-id': 'req-1' }],
        ['/v1/pets?limit=500', {}], // not read by the lane (limit > 100): Fastify's 401, identical
      ];
      for (const [path, headers] of inLane) {
        const recognised = matchLane(path) !== undefined;
        const answer = await same(p, recognised, 'GET', path, headers);
        if (!('x-request-id' in headers)) assert.equal(answer.headers[0], 'x-request-id: <generated>', 'a fresh id, first');
      }

      const handedOver: [string, string, Record<string, string>][] = [
        ['GET', '/v1/pets/999', auth], // 404
        ['GET', '/v1/pets/0', auth], // 400, not recognised
        ['GET', '/v1/pets/9007199254740992', auth],
        ['GET', '/v1/pets?limit=0', auth],
        ['GET', '/v1/pets?limit=101', auth],
        ['GET', '/v1/pets?limit=020', auth], // coerced by Fastify, not read by the lane
        ['GET', '/v1/pets?limit=20&limit=20', auth],
        ['GET', '/v1/pets?status=lost', auth],
        ['GET', '/v1/pets?extra=1', auth],
        ['GET', '/v1/pets?cursor=abc.def', auth], // invalid_cursor
        ['GET', `/v1${nextFiltered.replace('status=pending', 'status=sold')}`, auth], // a cursor of another filter
        ['GET', '/v1/pets?status=%70ending', auth],
        ['GET', '/v1/pets?', auth],
        ['GET', '/v1/pets/', auth],
        ['GET', '/v1/pets', { authorization: 'Basic Zm9vOmJhcg==' }],
        ['GET', '/v1/pets', { authorization: 'Bearer' }],
        ['GET', '/v1/pets', { authorization: 'Bearer pst_unknown' }],
        ['GET', '/v1/pets/1', { authorization: `Bearer ${key}x` }],
        ['GET', '/v1/pets', { authorization: `Bearer ${writer}` }], // 403 insufficient_scope
        ['GET', '/v1/pets/1', { authorization: `Bearer ${writer}` }],
        ['HEAD', '/v1/pets', auth],
        ['HEAD', '/v1/pets/1', auth],
        ['POST', '/v1/pets/1', auth], // 405
        ['GET', '/v1/categories', auth],
        ['GET', '/v1/store/orders', auth],
        ['GET', '/v1/nowhere', {}],
        ['GET', '/healthz', {}],
      ];
      for (const [method, path, headers] of handedOver) await same(p, false, method, path, headers);

      assert.deepEqual(accessLines(p.laneLogs), accessLines(p.plainLogs), 'the same request lines, in order');
      assert.ok(accessLines(p.laneLogs).length >= inLane.length + handedOver.length);
      assert.deepEqual(await requestCounts(p.laneMetrics), await requestCounts(p.plainMetrics), 'the same request counts');
      assert.ok((await requestCounts(p.laneMetrics)).some((l) => l.startsWith('http_requests_total{method="GET",route="/v1/pets/:petId",status="200"}')));
    });

    test('rate limits: RateLimit headers on lane answers; the 429 is Fastify’s, counted once as the plain app counts it', async (t) => {
      const storage = await openTestStorage(t, engine);
      await seed(storage);
      const p = await pair(t, storage, { RATE_LIMIT_PER_MINUTE: '3' });
      const { key } = await createApiKey(storage.apiKeys, 'all', SCOPES);
      const auth = { authorization: `Bearer ${key}`, 'x-request-id': 'rl' };
      const first = await same(p, true, 'GET', '/v1/pets?limit=2', auth);
      assert.ok(first.headers.includes('ratelimit-policy: "default";q=3;w=60'));
      assert.ok(first.headers.includes('ratelimit: "default";r=2;t=30'));
      await same(p, true, 'GET', '/v1/pets/1', auth);
      await same(p, true, 'GET', '/v1/pets', auth);
      const refused = await same(p, false, 'GET', '/v1/pets', auth);
      assert.equal(refused.status, 429);
      const again = await same(p, false, 'GET', '/v1/pets/1', auth);
      assert.equal(again.status, 429);
      assert.deepEqual(await requestCounts(p.laneMetrics), await requestCounts(p.plainMetrics));
      const limited = async (m: Metrics) => (await m.registry.metrics()).split('\n').filter((l) => l.startsWith('http_rate_limited_total'));
      assert.deepEqual(await limited(p.laneMetrics), await limited(p.plainMetrics));
    });

    test('an address over its failure budget is refused by Fastify, with or without a key', async (t) => {
      const storage = await openTestStorage(t, engine);
      await seed(storage);
      const p = await pair(t, storage, { AUTH_FAILURE_LIMIT_PER_MINUTE: '2' });
      const { key } = await createApiKey(storage.apiKeys, 'all', SCOPES);
      await same(p, true, 'GET', '/v1/pets', { 'x-request-id': 'f' }); // no credentials: not counted
      for (let i = 0; i < 3; i++) await same(p, false, 'GET', '/v1/pets', { authorization: 'Bearer pst_wrong', 'x-request-id': 'f' });
      const noKey = await same(p, false, 'GET', '/v1/pets', { 'x-request-id': 'f' });
      assert.equal(noKey.status, 429);
      const withKey = await same(p, false, 'GET', '/v1/pets/1', { authorization: `Bearer ${key}`, 'x-request-id': 'f' });
      assert.equal(withKey.status, 429);
    });

    test('CORS on: no lane (@fastify/cors adds Vary to every answer); the answers are Fastify’s', async (t) => {
      const storage = await openTestStorage(t, engine);
      const app = await buildApp({ config: loadConfig({ CORS_ORIGINS: 'https://app.example' }), storage, metrics: new Metrics(storage, { processMetrics: false }) });
      t.after(() => app.close());
      assert.equal(app.hotLane, undefined);
      const res = await app.inject({ method: 'GET', url: '/v1/pets' });
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers.vary, 'Origin');
    });

    test('past its sunset getPet answers 410 from Fastify; listings still take the lane', async (t) => {
      const storage = await openTestStorage(t, engine);
      await seed(storage);
      const clock = fixedClock(new Date(GET_PET_SUNSET.getTime() - 1));
      const p = await pair(t, storage, {}, clock);
      const { key } = await createApiKey(storage.apiKeys, 'all', SCOPES);
      const auth = { authorization: `Bearer ${key}`, 'x-request-id': 's' };
      await same(p, true, 'GET', '/v1/pets/1', auth);
      clock.set(GET_PET_SUNSET);
      assert.equal((await same(p, false, 'GET', '/v1/pets/1', auth)).status, 410);
      assert.equal((await same(p, false, 'GET', '/v1/pets/1', {})).status, 410);
      await same(p, true, 'GET', '/v1/pets', auth);
    });

    test('a key revoked by another instance (or the CLI) is refused from the next request on, in the lane too', async (t) => {
      const [served, admin] = await openSharedStorages(t, engine, 2);
      const p = await pair(t, served);
      const { key, info } = await createApiKey(admin.apiKeys, 'soon revoked', SCOPES);
      await admin.pets.create({ name: 'Rex', categoryId: 1, status: 'available' });
      const auth = { authorization: `Bearer ${key}`, 'x-request-id': 'r' };
      assert.equal((await same(p, true, 'GET', '/v1/pets/1', auth)).status, 200);
      assert.equal((await same(p, true, 'GET', '/v1/pets', auth)).status, 200);
      assert.equal(await admin.apiKeys.revoke(info.id, new Date()), true);
      assert.equal((await same(p, false, 'GET', '/v1/pets/1', auth)).status, 401);
      assert.equal((await same(p, false, 'GET', '/v1/pets', auth)).status, 401);
    });

    test('a pet another instance created or the lane had cached is read fresh', async (t) => {
      const [served, other] = await openSharedStorages(t, engine, 2);
      const p = await pair(t, served);
      const { key } = await createApiKey(served.apiKeys, 'all', SCOPES);
      const auth = { authorization: `Bearer ${key}`, 'x-request-id': 'n' };
      assert.equal((await same(p, true, 'GET', '/v1/pets', auth)).body, '[]');
      await same(p, false, 'GET', '/v1/pets/1', auth); // 404: handed over
      await other.pets.create({ name: 'Rex', categoryId: 1, status: 'available' });
      assert.equal((await same(p, true, 'GET', '/v1/pets/1', auth)).status, 200);
      assert.equal(JSON.parse((await same(p, true, 'GET', '/v1/pets', auth)).body).length, 1);
    });

    test('during shutdown every request goes to Fastify', async (t) => {
      const storage = await openTestStorage(t, engine);
      await seed(storage);
      const p = await pair(t, storage);
      p.lane.hotLane!.close();
      await same(p, false, 'GET', '/v1/pets', {});
    });
  });
}

test('a storage error in the lane is answered by Fastify (500 internal_error), not lost', async (t) => {
  const storage = await openTestStorage(t, 'sqlite' as Engine);
  const failing: Storage = {
    ...storage,
    pets: { ...storage.pets, get: async () => Promise.reject(Object.assign(new Error('boom'))), list: storage.pets.list.bind(storage.pets), create: storage.pets.create.bind(storage.pets) },
  };
  const { key } = await createApiKey(storage.apiKeys, 'all', SCOPES);
  const app = await buildApp({ config: loadConfig({}), storage: failing, metrics: new Metrics(storage, { processMetrics: false }) });
  t.after(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  const res = await send(port, 'GET', '/v1/pets/1', { authorization: `Bearer ${key}` });
  assert.equal(res.status, 500);
  assert.equal(JSON.parse(res.body).code, 'internal_error');
  assert.deepEqual(app.hotLane!.counts, { answered: 0, handedOver: 1, batches: 1 });
});

test('requests served together in one batch each get their own answer; a client that hangs up mid-batch disturbs none', async (t) => {
  const storage = await openTestStorage(t, 'sqlite' as Engine);
  await seed(storage);
  const { key } = await createApiKey(storage.apiKeys, 'all', SCOPES);
  const app = await buildApp({ config: loadConfig({}), storage, metrics: new Metrics(storage, { processMetrics: false }) });
  t.after(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  const auth = `Bearer ${key}`;

  const { connect } = await import('node:net');
  // Ten open connections, each sending its request in the same tick: the server reads them all in
  // one loop turn and serves them in one batch.
  const sockets = await Promise.all(
    Array.from({ length: 10 }, () => new Promise<import('node:net').Socket>((resolve) => {
      const s = connect(port, '127.0.0.1', () => resolve(s));
    })),
  );
  // Once the server has accepted all ten (and reads them), the requests go out together.
  while ((await new Promise<number>((r) => app.server.getConnections((_, n) => r(n)))) < 10) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 20));
  const batchesBefore = app.hotLane!.counts.batches;
  const replies = sockets.map(
    (s, i) =>
      new Promise<string>((resolve) => {
        let text = '';
        s.setEncoding('utf8');
        s.on('data', (c: string) => {
          text += c;
          if (/\r\n\r\n[\s\S]*\}$/.test(text)) resolve(text);
        });
        s.write(`GET /v1/pets/${i + 1} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nX-Request-Id: s-${i + 1}\r\n\r\n`);
      }),
  );
  for (const [i, text] of (await Promise.all(replies)).entries()) {
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(text, new RegExp(`\r\nx-request-id: s-${i + 1}\r\n`));
    assert.equal(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).id, i + 1);
  }
  for (const s of sockets) s.destroy();
  assert.ok(app.hotLane!.counts.batches - batchesBefore < 10, `10 requests in ${app.hotLane!.counts.batches - batchesBefore} batches: some shared one`);

  // Clients that send a request and hang up at once: their answers are written to closed sockets.
  for (let i = 0; i < 5; i++) {
    const s = connect(port, '127.0.0.1', () => {
      s.write(`GET /v1/pets/${i + 1} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n\r\n`);
      s.destroy();
    });
    s.on('error', () => {});
  }
  const ids = Array.from({ length: 40 }, (_, i) => 1 + (i % 45));
  const answers = await Promise.all(ids.map((id) => send(port, 'GET', `/v1/pets/${id}`, { authorization: auth, 'x-request-id': `b-${id}` })));
  for (const [i, a] of answers.entries()) {
    assert.equal(a.status, 200);
    assert.equal(JSON.parse(a.body).id, ids[i]);
    assert.equal(a.headers[0], `x-request-id: b-${ids[i]}`);
  }
  const pages = await Promise.all([1, 2, 3].map((limit) => send(port, 'GET', `/v1/pets?limit=${limit}`, { authorization: auth })));
  assert.deepEqual(
    pages.map((p) => JSON.parse(p.body).length),
    [1, 2, 3],
  );
  assert.ok(app.hotLane!.counts.answered >= 53, `answered ${app.hotLane!.counts.answered}`);
});

/** Writes raw bytes on one connection and reads until the server closes it. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    import('node:net').then(({ connect }) => {
      const s = connect(port, '127.0.0.1', () => s.write(bytes));
      let text = '';
      s.setEncoding('utf8');
      s.on('data', (c: string) => (text += c));
      s.on('end', () => resolve(text));
      s.on('error', reject);
    }, reject);
  });
}

test('raw HTTP: HTTP/1.0, pipelined requests (lane and Fastify mixed), Connection: close — the same bytes', async (t) => {
  for (const limited of [false, true]) {
    const storage = await openTestStorage(t, 'sqlite' as Engine);
    await seed(storage);
    const p = await pair(t, storage, limited ? {} : { RATE_LIMIT_PER_MINUTE: '0' });
    const { key } = await createApiKey(storage.apiKeys, 'all', SCOPES);
    const auth = `Authorization: Bearer ${key}\r\n`;
    const body = '{"name":"Zed","categoryId":1}';
    const exchanges = [
      `GET /v1/pets/1 HTTP/1.0\r\n${auth}X-Request-Id: h10\r\n\r\n`,
      `GET /v1/pets?limit=2 HTTP/1.0\r\nX-Request-Id: h10b\r\n\r\n`,
      // Pipelined: a lane read, a Fastify 404, a lane 401, a POST, a lane page; the last closes.
      `GET /v1/pets/2 HTTP/1.1\r\nHost: x\r\n${auth}X-Request-Id: p1\r\n\r\n` +
        `GET /v1/pets/9999 HTTP/1.1\r\nHost: x\r\n${auth}X-Request-Id: p2\r\n\r\n` +
        `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-Id: p3\r\n\r\n` +
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth}X-Request-Id: p4\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        `GET /v1/pets?limit=3&status=sold HTTP/1.1\r\nHost: x\r\n${auth}X-Request-Id: p5\r\nConnection: close\r\n\r\n`,
    ];
    for (const bytes of exchanges) {
      const strip = (text: string) => text.replace(/\r\nDate: [^\r]+/g, '').replace(/"id":\d+,"name":"Zed"/g, '"id":N,"name":"Zed"').replace(/\/v1\/pets\/\d+\r\n/g, '/v1/pets/N\r\n');
      const a = strip(await rawExchange(p.lanePort, bytes));
      const b = strip(await rawExchange(p.plainPort, bytes));
      assert.match(a, /^HTTP\/1\.1 (200|401)/);
      if (!limited) {
        assert.equal(a, b);
        continue;
      }
      // Pipelined requests are served concurrently (by Fastify too); the lane's batched reads take
      // their rate-limit slot at the end of the loop turn, so which pipelined request gets which
      // slot may differ — the same slots are taken, and everything else is byte for byte the same.
      const remaining = (text: string) => [...text.matchAll(/\r\nratelimit: "default";r=(\d+);t=\d+/g)].map((m) => Number(m[1])).sort();
      assert.deepEqual(remaining(a), remaining(b));
      const slotless = (text: string) => text.replace(/\r\nratelimit: "default";r=\d+/g, '\r\nratelimit: "default";r=R');
      assert.equal(slotless(a), slotless(b));
    }
    assert.ok(p.lane.hotLane!.counts.answered >= 5, `answered ${p.lane.hotLane!.counts.answered}`);
  }
});
