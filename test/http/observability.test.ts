import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { buildOpsApp } from '../../src/app.ts';
import { loggerOptions } from '../../src/logger.ts';
import { loadConfig } from '../../src/config.ts';
import { LEGACY_NAMES, Metrics } from '../../src/http/ops/metrics.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import { buildTestApp, logCapture } from '../helpers/app.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request id', () => {
  test('echoes a sane incoming X-Request-Id', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: { ...auth, 'x-request-id': 'abc-123.DEF_4:5' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-request-id'], 'abc-123.DEF_4:5');
  });

  test('replaces an over-long or unsafe X-Request-Id with a generated UUID', async (t) => {
    const { app, auth } = await buildTestApp(t);
    for (const bad of ['x'.repeat(129), 'has space', 'quote"d', 'semi;colon', '']) {
      const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: { ...auth, 'x-request-id': bad } });
      assert.match(String(res.headers['x-request-id']), UUID, `for ${JSON.stringify(bad)}`);
    }
  });

  test('is on 401, 404, 405, 400, 503 and framework-error responses, distinct per request', async (t) => {
    const { app, auth, storage } = await buildTestApp(t, { storage: openSqlite({ path: ':memory:' }) });
    const cases = [
      { method: 'GET', url: '/v1/pets', status: 401 },
      { method: 'GET', url: '/nowhere', status: 404 },
      { method: 'DELETE', url: '/v1/pets', headers: auth, status: 405 },
      { method: 'GET', url: '/v1/pets?limit=0', headers: auth, status: 400 },
      { method: 'GET', url: '/v1/pets/%E0%A4%A', headers: auth, status: 400 },
    ] as const;
    const seen = new Set<string>();
    for (const c of cases) {
      const res = await app.inject({ method: c.method, url: c.url, headers: 'headers' in c ? c.headers : {} });
      assert.equal(res.statusCode, c.status, c.url);
      assert.match(String(res.headers['x-request-id']), UUID, `${c.method} ${c.url}`);
      seen.add(String(res.headers['x-request-id']));
    }
    assert.equal(seen.size, cases.length);
    await storage.close();
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 503);
    assert.match(String(res.headers['x-request-id']), UUID);
  });
});

describe('request log', () => {
  test('writes one JSON line per request with method, route pattern, status, duration, key id and request id', async (t) => {
    const logs = logCapture();
    const config = loadConfig({});
    const { app, auth, key } = await buildTestApp(t, { logger: { ...(loggerOptions(config) as object), stream: logs.stream } });
    const created = await app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { ...auth, 'x-request-id': 'req-1' },
      payload: { name: 'Rex', categoryId: 1 },
    });
    await app.inject({ method: 'GET', url: `/v1/pets/${created.json().id}`, headers: { ...auth, 'x-request-id': 'req-2' } });
    await app.inject({ method: 'GET', url: '/v1/pets', headers: { authorization: 'Bearer pst_wrongwrongwrong', 'x-request-id': 'req-3' } });
    const lines = logs.lines().filter((l) => l.msg === 'request');
    assert.equal(lines.length, 3);
    const [post, get, denied] = lines;
    // What log shippers read without a mapping: the level's name and an ISO 8601 instant.
    assert.equal(post.level, 'info');
    assert.match(String(post.time), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(Math.abs(Date.parse(String(post.time)) - Date.now()) < 60_000, 'the time is now');
    assert.equal(post.reqId, 'req-1');
    assert.equal(post.method, 'POST');
    assert.equal(post.route, '/v1/pets');
    assert.equal(post.status, 201);
    assert.equal(typeof post.durationMs, 'number');
    assert.equal(typeof post.keyId, 'number');
    assert.equal(get.route, '/v1/pets/:petId');
    assert.equal(get.reqId, 'req-2');
    assert.equal(denied.status, 401);
    assert.equal(denied.keyId, null);
    assert.ok(!logs.text().includes(key), 'the API key never reaches the log');
    assert.ok(!logs.text().includes('pst_wrongwrongwrong'), 'a rejected token never reaches the log');
  });

  test('names the Error code of a 4xx or 5xx answer (5xx at error level), and the path without its query for a request no route matched', async (t) => {
    const logs = logCapture();
    const { app, auth, storage } = await buildTestApp(t, {
      storage: openSqlite({ path: ':memory:' }),
      logger: { ...(loggerOptions(loadConfig({})) as object), stream: logs.stream },
    });
    await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
    await app.inject({ method: 'GET', url: '/v1/pets?limit=0', headers: auth });
    await app.inject({ method: 'DELETE', url: '/v1/pets', headers: auth });
    await app.inject({ method: 'GET', url: '/nowhere/x?token=s3cret-query' });
    await storage.close();
    await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
    const lines = logs.lines().filter((l) => l.msg === 'request');
    assert.deepEqual(
      lines.map(({ route, path, status, code }) => ({ route, path, status, code })),
      [
        { route: '/v1/pets', path: undefined, status: 200, code: null },
        { route: '/v1/pets', path: undefined, status: 400, code: 'validation_failed' },
        { route: '/v1/pets', path: undefined, status: 405, code: 'method_not_allowed' },
        { route: 'unmatched', path: '/nowhere/x', status: 404, code: 'not_found' },
        { route: '/v1/pets', path: undefined, status: 500, code: 'internal_error' },
      ],
    );
    assert.equal(lines.at(-1)?.level, 'error');
    assert.doesNotMatch(logs.text(), /s3cret-query/);
  });

  test('redacts authorization wherever a log line carries headers', async (t) => {
    const logs = logCapture();
    const { app } = await buildTestApp(t, { logger: { ...(loggerOptions(loadConfig({})) as object), stream: logs.stream } });
    app.log.info({ req: { headers: { authorization: 'Bearer s3cret-1' } } }, 'a');
    app.log.info({ headers: { authorization: 'Bearer s3cret-2' } }, 'b');
    app.log.info({ upstream: { headers: { authorization: 'Bearer s3cret-3' } } }, 'c');
    app.log.info({ authorization: 'Bearer s3cret-4' }, 'd');
    assert.doesNotMatch(logs.text(), /s3cret/);
    // Fastify's req serializer drops headers altogether; the other three keep a visible marker.
    assert.deepEqual(
      logs
        .lines()
        .filter((l) => JSON.stringify(l).includes('[redacted]'))
        .map((l) => l.msg),
      ['b', 'c', 'd'],
    );
  });
});

describe('GET /metrics', () => {
  test('serves Prometheus text with request counts and latency by route pattern and status, database and process gauges', async (t) => {
    const storage = openSqlite({ path: ':memory:' });
    const metrics = new Metrics(storage);
    const { app, auth } = await buildTestApp(t, { storage, metrics });
    t.after(() => storage.close());
    for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
    await app.inject({ method: 'GET', url: '/v1/pets' });
    await app.inject({ method: 'GET', url: '/v1/pets/1', headers: auth });
    await app.inject({ method: 'GET', url: '/random/junk/1' });
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = res.body;
    assert.match(text, /^petstore_http_requests_total\{method="GET",route="\/v1\/pets",status="200"\} 3$/m);
    assert.match(text, /^petstore_http_requests_total\{method="GET",route="\/v1\/pets",status="401"\} 1$/m);
    assert.match(text, /^petstore_http_requests_total\{method="GET",route="\/v1\/pets\/:petId",status="404"\} 1$/m);
    assert.match(text, /^petstore_http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
    assert.match(text, /^petstore_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/v1\/pets",status="200"\} 3$/m);
    assert.match(text, /^petstore_http_request_duration_seconds_count\{method="GET",route="\/v1\/pets",status="200"\} 3$/m);
    assert.match(text, /^# TYPE petstore_http_rate_limited_total counter$/m);
    assert.match(text, /^petstore_db_connections\{state="idle"\} 1$/m);
    assert.match(text, /^petstore_db_connections\{state="in_use"\} 0$/m);
    assert.match(text, /^petstore_db_waiting_queries 0$/m);
    assert.match(text, /^process_cpu_user_seconds_total \d/m);
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
    assert.doesNotMatch(text, /junk/);
  });

  test('names every metric of its own petstore_* and reports its build as petstore_build_info', async (t) => {
    const { app } = await buildTestApp(t);
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    const own = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]).filter((n) => !(n in LEGACY_NAMES) && n !== 'db_connections');
    assert.ok(own.length >= 10);
    for (const name of own) assert.match(name, /^petstore_/);
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.match(
      text,
      new RegExp(`^petstore_build_info\\{version="${version.replaceAll('.', '\\.')}",nodejs_version="${process.version}",engine="sqlite"\\} 1$`, 'm'),
    );
  });

  test('still serves the old metric names, each the same series as its new name, for one release', async (t) => {
    const storage = openSqlite({ path: ':memory:' });
    const { app, auth } = await buildTestApp(t, { storage, metrics: new Metrics(storage, { processMetrics: false }) });
    t.after(() => storage.close());
    await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
    await app.inject({ method: 'GET', url: '/v1/pets' });
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    const series = (name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name}_`) || l.startsWith(`${name} `));
    for (const [legacy, current] of Object.entries(LEGACY_NAMES)) {
      const now = series(current);
      assert.deepEqual(
        series(legacy),
        now.map((l) => legacy + l.slice(current.length)),
        legacy,
      );
      assert.match(text, new RegExp(`^# HELP ${legacy} Deprecated: use ${current}\\. `, 'm'));
      assert.match(text, new RegExp(`^# TYPE ${legacy} (counter|gauge|histogram)$`, 'm'));
    }
    assert.equal(series('http_requests_total').length, 2);
    assert.equal(series('http_request_duration_seconds').length, 2 * 15);
    assert.match(text, /^db_connections\{state="total"\} 1$/m);
    assert.match(text, /^db_connections\{state="idle"\} 1$/m);
  });

  test('health and metrics answer without a key; /readyz says ready', async (t) => {
    const { app } = await buildTestApp(t);
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    assert.deepEqual([ready.statusCode, ready.json()], [200, { status: 'ready' }]);
    assert.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 200);
  });

  test('with METRICS_PORT, health and metrics leave the main port for the ops app', async (t) => {
    const storage = openSqlite({ path: ':memory:' });
    const metrics = new Metrics(storage, { processMetrics: false });
    const { app, auth } = await buildTestApp(t, { storage, metrics, env: { METRICS_PORT: '9464' } });
    const ops = await buildOpsApp({ storage, metrics });
    t.after(async () => {
      await ops.close();
      await storage.close();
    });
    for (const url of ['/metrics', '/healthz', '/readyz']) {
      assert.equal((await app.inject({ method: 'GET', url })).statusCode, 404, `main port ${url}`);
      assert.equal((await ops.inject({ method: 'GET', url })).statusCode, 200, `ops port ${url}`);
    }
    await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
    assert.match((await ops.inject({ method: 'GET', url: '/metrics' })).body, /route="\/v1\/pets",status="200"\} 1$/m);
    assert.equal((await ops.inject({ method: 'GET', url: '/v1/pets', headers: auth })).statusCode, 404);
  });
});
