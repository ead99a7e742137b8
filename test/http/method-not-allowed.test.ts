import assert from 'node:assert/strict';
import { METHODS } from 'node:http';
import { describe, test } from 'node:test';
import { buildOpsApp } from '../../src/app.ts';
import { Metrics } from '../../src/http/ops/metrics.ts';
import { sharedTestApp } from '../helpers/app.ts';
import { exchange, listening } from '../helpers/raw-http.ts';

// node:http turns CONNECT into a tunnel before a request exists: tested over a real connection below.
const ROUTABLE = METHODS.filter((m) => m !== 'CONNECT');

const PATHS: [url: string, allow: string][] = [
  ['/v1/pets', 'GET, HEAD, POST'],
  ['/v1/pets/1', 'GET, HEAD, PATCH, DELETE'],
  ['/v1/categories', 'GET, HEAD, POST'],
  ['/v1/categories/1', 'GET, HEAD, PATCH, DELETE'],
  ['/v1/store/orders', 'GET, HEAD, POST'],
  ['/v1/store/orders/1', 'GET, HEAD, PATCH'],
  ['/v1/store/inventory', 'GET, HEAD'],
  ['/v1/keys', 'GET, HEAD, POST'],
  ['/v1/keys/1', 'GET, HEAD, DELETE'],
];

describe('405 with Allow for every method token node:http parses, on every known path', () => {
  // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
  const testApp = sharedTestApp();
  test('TRACE, PROPFIND, QUERY, … on a documented path → 405 method_not_allowed with Allow (after authentication)', async (t) => {
    const { app, auth } = await testApp(t);
    for (const [url, allow] of PATHS) {
      const allowed = allow.split(', ');
      for (const method of ROUTABLE.filter((m) => !allowed.includes(m))) {
        const res = await app.inject({ method: method as 'GET', url, headers: auth });
        assert.equal(res.statusCode, 405, `${method} ${url}: ${res.body}`);
        assert.equal(res.headers.allow, allow, `${method} ${url}`);
        if (method !== 'HEAD') assert.equal(res.json().code, 'method_not_allowed', `${method} ${url}`);
      }
    }
    for (const method of ['TRACE', 'PROPFIND', 'MKCOL']) {
      assert.equal((await app.inject({ method: method as 'GET', url: '/v1/pets' })).statusCode, 401, `${method} without a key`);
    }
  });

  test('the 405 comes before the body is read: a PUT with a body of any type is refused as a PUT', async (t) => {
    const { app, auth } = await testApp(t);
    for (const [type, payload] of [
      ['text/plain', 'hello'],
      ['application/json', '{not json'],
      ['application/xml', '<pet/>'],
    ]) {
      const res = await app.inject({ method: 'PUT', url: '/v1/pets/1', headers: { ...auth, 'content-type': type }, payload });
      assert.equal(res.statusCode, 405, `${type}: ${res.body}`);
    }
  });

  test('an unknown path with such a method is still 404', async (t) => {
    const { app, auth } = await testApp(t);
    for (const method of ['TRACE', 'PROPFIND', 'SEARCH']) {
      const res = await app.inject({ method: method as 'GET', url: '/v1/nowhere', headers: auth });
      assert.equal(res.statusCode, 404, method);
      assert.equal(res.json().code, 'not_found', method);
    }
  });

  test('CONNECT to a known path is routed like any method: 401 without a key, 405 with one', async (t) => {
    const { port, auth } = await listening(t);
    const anonymous = (await exchange(port, 'CONNECT /v1/pets HTTP/1.1\r\nHost: a\r\n\r\n')).data;
    assert.match(anonymous, /^HTTP\/1\.1 401 [\s\S]*\r\nconnection: close\r\n[\s\S]*"code":"unauthorized"/i);
    const res = (await exchange(port, `CONNECT /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: ${auth.authorization}\r\n\r\n`)).data;
    assert.match(res, /^HTTP\/1\.1 405 /);
    assert.match(res, /\r\nallow: GET, HEAD, POST\r\n/i);
    assert.match(res, /"code":"method_not_allowed"/);
    // The authority form CONNECT is made for names no path of this service.
    const authority = (await exchange(port, `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nAuthorization: ${auth.authorization}\r\n\r\n`)).data;
    assert.match(authority, /^HTTP\/1\.1 404 [\s\S]*"code":"not_found"/);
  });

  test('the operations port (METRICS_PORT) answers 405 the same way', async (t) => {
    const { storage } = await testApp(t);
    const ops = await buildOpsApp({ storage, metrics: new Metrics(storage, { processMetrics: false }) });
    t.after(() => ops.close());
    for (const method of ['POST', 'TRACE', 'DELETE']) {
      const res = await ops.inject({ method: method as 'GET', url: '/healthz' });
      assert.equal(res.statusCode, 405, method);
      assert.equal(res.headers.allow, 'GET, HEAD');
    }
  });
});
