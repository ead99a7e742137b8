import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp } from '../helpers/app.ts';

const ORIGIN = 'https://app.example.com';
const EXPOSED = 'Link, Location, RateLimit, RateLimit-Policy, Retry-After, Deprecation, Sunset, X-Request-Id';

describe('CORS', () => {
  test('is off by default: no CORS headers, OPTIONS stays 405', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: { ...auth, origin: ORIGIN } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    const pre = await app.inject({ method: 'OPTIONS', url: '/v1/pets', headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
    assert.equal(pre.statusCode, 401);
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
  });

  test('answers a preflight without a key despite the explicit OPTIONS 405 routes', async (t) => {
    const { app } = await buildTestApp(t, { env: { CORS_ORIGINS: `${ORIGIN},https://other.example.com` } });
    for (const url of ['/v1/pets', '/v1/pets/7', '/v1/store/orders/3']) {
      const pre = await app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' },
      });
      assert.equal(pre.statusCode, 204, url);
      assert.equal(pre.headers['access-control-allow-origin'], ORIGIN);
      assert.match(String(pre.headers['access-control-allow-headers']), /Authorization/);
      assert.match(String(pre.headers['access-control-allow-headers']), /Idempotency-Key/);
      assert.match(String(pre.headers['access-control-allow-methods']), /POST/);
    }
    // Conditional writes from a browser: DELETE and If-Match are allowed, ETag is readable.
    const pre = await app.inject({
      method: 'OPTIONS',
      url: '/v1/pets/7',
      headers: { origin: ORIGIN, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization, if-match' },
    });
    assert.equal(pre.statusCode, 204);
    assert.match(String(pre.headers['access-control-allow-methods']), /DELETE/);
    assert.match(String(pre.headers['access-control-allow-headers']), /If-Match/);
    assert.match(String(pre.headers['access-control-allow-headers']), /If-None-Match/);
  });

  test('exposes the service headers to an allowed origin and says nothing to another', async (t) => {
    const { app, auth } = await buildTestApp(t, { env: { CORS_ORIGINS: ORIGIN } });
    const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: { ...auth, origin: ORIGIN } });
    assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
    assert.ok(String(res.headers['access-control-expose-headers']).startsWith(EXPOSED));
    assert.match(String(res.headers['access-control-expose-headers']), /\bETag\b/);
    assert.match(String(res.headers.vary), /Origin/);
    const other = await app.inject({ method: 'GET', url: '/v1/pets', headers: { ...auth, origin: 'https://evil.example.com' } });
    assert.equal(other.statusCode, 200);
    assert.equal(other.headers['access-control-allow-origin'], undefined);
    const refused = await app.inject({ method: 'GET', url: '/v1/pets', headers: { origin: ORIGIN } });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers['access-control-allow-origin'], ORIGIN, 'a browser can read why it was refused');
  });

  test('an OPTIONS that is no preflight still gets 405 with Allow; unknown paths still 404', async (t) => {
    const { app, auth } = await buildTestApp(t, { env: { CORS_ORIGINS: '*' } });
    for (const headers of [auth, { ...auth, origin: ORIGIN }]) {
      const res = await app.inject({ method: 'OPTIONS', url: '/v1/pets', headers });
      assert.equal(res.statusCode, 405);
      assert.equal(res.headers.allow, 'GET, HEAD, POST');
    }
    assert.equal((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode, 404);
    assert.equal((await app.inject({ method: 'POST', url: '/nowhere' })).statusCode, 404);
  });

  test('with CORS on, /v1 paths no route of ours matches still need a key', async (t) => {
    // The plugin's catch-all OPTIONS route ('*') and unknown paths have no route of ours: their
    // authentication must not depend on the order the plugin and the auth hooks were registered in.
    const { app, auth } = await buildTestApp(t, { env: { CORS_ORIGINS: ORIGIN } });
    const options = await app.inject({ method: 'OPTIONS', url: '/v1/nowhere' });
    assert.equal(options.statusCode, 401);
    assert.equal(options.headers['cache-control'], 'no-store');
    assert.equal((await app.inject({ method: 'OPTIONS', url: '/v1/nowhere', headers: auth })).statusCode, 404);
    const unknown = await app.inject({ method: 'GET', url: '/v1/nope', headers: { origin: ORIGIN } });
    assert.equal(unknown.statusCode, 401);
    assert.equal(unknown.headers['access-control-allow-origin'], ORIGIN, 'CORS headers come before the refusal');
    assert.match(String(unknown.headers.vary), /Origin/);
    assert.equal((await app.inject({ method: 'OPTIONS', url: '/nowhere' })).statusCode, 404);
  });

  test('rejects a CORS_ORIGINS entry that is not an origin', async (t) => {
    await assert.rejects(buildTestApp(t, { env: { CORS_ORIGINS: 'https://app.example.com/path' } }), /CORS_ORIGINS/);
  });
});

describe('security headers', () => {
  test('nosniff everywhere, no-store on authenticated operations, no X-Powered-By', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const ok = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
    const created = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
    const refused = await app.inject({ method: 'GET', url: '/v1/pets' });
    for (const res of [ok, created, refused]) {
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['x-powered-by'], undefined);
    }
    for (const url of ['/nowhere', '/healthz', '/v1/openapi.json', '/v1/pets/%E0%A4%A']) {
      const res = await app.inject({ method: 'GET', url, headers: auth });
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['x-powered-by'], undefined, url);
    }
  });
});
