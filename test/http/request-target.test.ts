import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, sharedTestApp } from '../helpers/app.ts';
import { exchange, listening } from '../helpers/raw-http.ts';

type Auth = { authorization: string };

async function created(app: FastifyInstance, auth: Auth, url: string, payload: object): Promise<number> {
  const res = await app.inject({ method: 'POST', url, headers: auth, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

const DEPRECATION = ['deprecation', 'sunset', 'link'] as const;

function assertDeprecationHeaders(res: { headers: Record<string, unknown> }, what: string): void {
  for (const h of DEPRECATION) assert.ok(res.headers[h], `${what}: ${h}`);
  assert.equal(res.headers.deprecation, '@1767225600', what);
}

describe("getPet: every response carries the deprecation headers, the router's refusals included", () => {
  // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
  const testApp = sharedTestApp();
  test('bad percent-encoding (%zz, %ff) → 400 bad_request after authentication, with the deprecation headers', async (t) => {
    const { app, auth } = await testApp(t);
    for (const url of ['/v1/pets/%zz', '/v1/pets/%ff', '/v1/pets/%']) {
      const res = await app.inject({ method: 'GET', url, headers: auth });
      assert.equal(res.statusCode, 400, url);
      assert.deepEqual(res.json(), { code: 'bad_request', message: 'the request path is not valid percent-encoded UTF-8', status: 400 }, url);
      assertDeprecationHeaders(res, url);
      assert.ok(res.headers.ratelimit, `${url}: the request was authenticated and counted`);
      const anonymous = await app.inject({ method: 'GET', url });
      assert.equal(anonymous.statusCode, 401, `${url} without a key`);
      assertDeprecationHeaders(anonymous, `${url} without a key`);
    }
  });

  test('a petId of 101 digits → 400 validation_failed with the deprecation headers', async (t) => {
    const { app, auth } = await testApp(t);
    const res = await app.inject({ method: 'GET', url: `/v1/pets/${'1'.repeat(101)}`, headers: auth });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'validation_failed');
    assert.match(res.json().message, /^path parameter "petId" must be <= 9007199254740991$/);
    assertDeprecationHeaders(res, '101 digits');
    const order = await app.inject({ method: 'GET', url: `/v1/store/orders/${'7'.repeat(101)}`, headers: auth });
    assert.equal(order.statusCode, 400);
    assert.match(order.json().message, /^path parameter "orderId" must be <= 9007199254740991$/);
  });

  test('bad percent-encoding elsewhere is 400 after authentication too', async (t) => {
    const { app, auth } = await testApp(t);
    assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders/%zz' })).statusCode, 401);
    assert.equal((await app.inject({ method: 'GET', url: '/v1/nowhere/%zz' })).statusCode, 401);
    for (const url of ['/v1/store/orders/%zz', '/v1/nowhere/%zz', '/v1/pets%C0%AF']) {
      const res = await app.inject({ method: 'GET', url, headers: auth });
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().code, 'bad_request', url);
    }
  });
});

describe('trailing slashes: 404 on every path', () => {
  // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
  const testApp = sharedTestApp();
  test('GET, PATCH and POST on /v1/… paths with a trailing slash are 404 not_found', async (t) => {
    const { app, auth } = await testApp(t);
    const cases: [string, string][] = [
      ['GET', '/v1/pets/'],
      ['POST', '/v1/pets/'],
      ['PATCH', '/v1/pets/'],
      ['GET', '/v1/categories/'],
      ['GET', '/v1/store/orders/'],
      ['PATCH', '/v1/store/orders/'],
      ['GET', '/v1/store/orders/1/'],
      ['GET', '/v1/pets/?limit=1'],
      ['GET', '/healthz/'],
    ];
    for (const [method, url] of cases) {
      const res = await app.inject({ method: method as 'GET', url, headers: auth, ...(method === 'GET' ? {} : { payload: {} }) });
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
      assert.equal(res.json().code, 'not_found', `${method} ${url}`);
    }
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets/' })).statusCode, 401, 'nothing about /v1 without a key');
  });

  test('a route registered with a trailing slash keeps it (the reference page /docs/)', async (t) => {
    const { app } = await testApp(t);
    assert.equal((await app.inject({ method: 'GET', url: '/docs/' })).statusCode, 200);
  });
});

describe('Host (RFC 9112 §3.2)', () => {
  test('two Host header fields, or an invalid one → 400 bad_request', async (t) => {
    const { app, auth } = await buildTestApp(t);
    for (const host of [['a.example', 'b.example'], ['a.example', 'a.example'], 'a b', 'a/b', 'exa mple.com:80', 'a.example:port', '[::1']) {
      const res = await app.inject({ method: 'GET', url: '/v1/categories', headers: { ...auth, host } as never });
      assert.equal(res.statusCode, 400, `Host ${JSON.stringify(host)}`);
      assert.equal(res.json().code, 'bad_request', `Host ${JSON.stringify(host)}`);
      assert.match(res.json().message, /Host/);
    }
    for (const host of ['api.example.com', 'api.example.com:8443', '127.0.0.1:80', '[::1]:8080', 'xn--bcher-kva.example']) {
      const res = await app.inject({ method: 'GET', url: '/v1/categories', headers: { ...auth, host } });
      assert.equal(res.statusCode, 200, `Host ${JSON.stringify(host)}: ${res.body}`);
    }
  });

  test('over a real connection: no Host on HTTP/1.1 → 400 in the Error shape (HTTP/1.0 may omit it), two → 400', async (t) => {
    const { port, auth } = await listening(t);
    const missing = (await exchange(port, `GET /v1/categories HTTP/1.1\r\nAuthorization: ${auth.authorization}\r\nConnection: close\r\n\r\n`)).data;
    assert.match(missing, /^HTTP\/1\.1 400 /);
    assert.match(missing, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
    assert.match(missing, /\{"code":"bad_request","message":"a request must have a Host header field","status":400\}$/);
    const two = (await exchange(port, `GET /v1/categories HTTP/1.1\r\nHost: a\r\nHost: b\r\nAuthorization: ${auth.authorization}\r\nConnection: close\r\n\r\n`))
      .data;
    assert.match(two, /^HTTP\/1\.1 400 [\s\S]*"code":"bad_request"/);
    const http10 = (await exchange(port, `GET /v1/categories HTTP/1.0\r\nAuthorization: ${auth.authorization}\r\n\r\n`)).data;
    assert.match(http10, /^HTTP\/1\.1 200 /);
  });
});

describe('request targets and versions', () => {
  test('the absolute form of a request target is served, authenticated and logged as its path', async (t) => {
    const { port, auth } = await listening(t);
    const ok = (
      await exchange(
        port,
        `GET http://api.example/v1/categories HTTP/1.1\r\nHost: api.example\r\nAuthorization: ${auth.authorization}\r\nConnection: close\r\n\r\n`,
      )
    ).data;
    assert.match(ok, /^HTTP\/1\.1 200 /);
    const unknown = (await exchange(port, 'GET http://api.example/v1/nowhere HTTP/1.1\r\nHost: api.example\r\nConnection: close\r\n\r\n')).data;
    assert.match(unknown, /^HTTP\/1\.1 401 /, 'an unknown /v1 path needs a key in absolute form too');
  });

  test('HTTP/2.0 and HTTP/0.9 request lines (which llhttp parses) → 505 http_version_not_supported', async (t) => {
    const { port, auth } = await listening(t);
    for (const version of ['HTTP/2.0', 'HTTP/0.9']) {
      const res = (await exchange(port, `GET /v1/categories ${version}\r\nHost: a\r\nAuthorization: ${auth.authorization}\r\nConnection: close\r\n\r\n`)).data;
      assert.match(res, /^HTTP\/1\.1 505 /, version);
      assert.match(res, /"code":"http_version_not_supported"/, version);
    }
  });
});

describe('query parameters: one rule on every operation', () => {
  test('an unknown query parameter is refused with 400 naming it, on every operation', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const petId = await created(app, auth, '/v1/pets', { name: 'Rex', categoryId: 1 });
    const orderId = await created(app, auth, '/v1/store/orders', { petId: await created(app, auth, '/v1/pets', { name: 'Max', categoryId: 1 }) });
    const requests: [string, string, object?][] = [
      ['GET', '/v1/pets'],
      ['POST', '/v1/pets', { name: 'Rex', categoryId: 1 }],
      ['GET', `/v1/pets/${petId}`],
      ['GET', '/v1/categories'],
      ['GET', '/v1/store/orders'],
      ['POST', '/v1/store/orders', { petId }],
      ['GET', `/v1/store/orders/${orderId}`],
      ['PATCH', `/v1/store/orders/${orderId}`, { status: 'approved' }],
    ];
    for (const [method, url, payload] of requests) {
      const res = await app.inject({ method: method as 'GET', url: `${url}?verbose=1`, headers: auth, payload });
      assert.equal(res.statusCode, 400, `${method} ${url}?verbose=1: ${res.body}`);
      assert.deepEqual(
        res.json(),
        {
          code: 'validation_failed',
          message: 'query parameter "verbose" is not supported',
          status: 400,
          errors: [{ in: 'query', field: 'verbose', rule: 'additionalProperties', message: 'is not a parameter of this request' }],
        },
        `${method} ${url}`,
      );
    }
    // Nothing was created or changed by the refused writes.
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).json().length, 2);
    assert.equal((await app.inject({ method: 'GET', url: `/v1/store/orders/${orderId}`, headers: auth })).json().status, 'placed');
  });
});
