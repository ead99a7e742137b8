// Where /metrics is served (issue 26 item 4): on the API port only while it listens on loopback;
// on any other address only on METRICS_PORT. Health stays public on the API port for load balancers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isLoopbackHost, metricsOnApiPort } from '../../src/http/ops/ops.routes.ts';
import { buildTestApp, logCapture } from '../helpers/app.ts';

describe('/metrics on the API port', () => {
  test('served while HOST is a loopback address (the default 127.0.0.1), without a key', async (t) => {
    for (const HOST of ['127.0.0.1', 'localhost', '::1', '[::1]']) {
      const { app } = await buildTestApp(t, { env: { HOST } });
      const res = await app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 200, HOST);
      assert.match(res.body, /^# HELP petstore_/m);
    }
  });

  test('not served when HOST accepts remote clients (404, like any unknown path); health still is; start-up says why', async (t) => {
    for (const HOST of ['0.0.0.0', '::', '192.168.1.20', 'api.example.com']) {
      const logs = logCapture();
      const { app, auth } = await buildTestApp(t, { env: { HOST }, logger: { level: 'warn', stream: logs.stream } });
      for (const headers of [{}, auth]) {
        const res = await app.inject({ method: 'GET', url: '/metrics', headers });
        assert.equal(res.statusCode, 404, HOST);
        assert.doesNotMatch(res.body, /petstore_/);
      }
      assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
      assert.ok(
        logs.lines().some((l) => l.level === 40 && /\/metrics is not served.*METRICS_PORT/.test(String(l.msg))),
        `a warning names METRICS_PORT: ${logs.text()}`,
      );
    }
  });

  test('the rule: loopback addresses in every spelling, nothing else; METRICS_PORT takes /metrics off the API port', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'LOCALHOST', '::1', '0:0:0:0:0:0:0:1', '[::1]', '::ffff:127.0.0.1']) assert.equal(isLoopbackHost(h), true, h);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', '::ffff:10.0.0.1', 'localhost.example.com', 'example.com', '::2'])
      assert.equal(isLoopbackHost(h), false, h);
    assert.equal(metricsOnApiPort({ host: '127.0.0.1' }), true);
    assert.equal(metricsOnApiPort({ host: '127.0.0.1', metricsPort: 9464 }), false);
    assert.equal(metricsOnApiPort({ host: '0.0.0.0' }), false);
  });
});
