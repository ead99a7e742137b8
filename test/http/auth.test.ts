import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, sharedTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';
import { revokeApiKey } from '../../src/keys/key.service.ts';

// Every operation, with a request that would otherwise be valid.
const OPERATIONS = [
  { method: 'GET', url: '/v1/pets' },
  { method: 'POST', url: '/v1/pets', payload: { name: 'Rex', categoryId: 1 } },
  { method: 'GET', url: '/v1/pets/1' },
  { method: 'GET', url: '/v1/categories' },
  { method: 'GET', url: '/v1/store/orders' },
  { method: 'POST', url: '/v1/store/orders', payload: { petId: 1 } },
  { method: 'GET', url: '/v1/store/orders/1' },
  { method: 'PATCH', url: '/v1/store/orders/1', payload: { status: 'approved' } },
] as const;

const REALM = 'Bearer realm="petstore"';

for (const engine of ENGINES) {
  describe(engine, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    describe('authentication on every operation', () => {
      for (const op of OPERATIONS) {
        test(`${op.method} ${op.url}: 401 for missing, malformed, unknown and revoked keys`, async (t) => {
          const { app, storage, key } = await testApp(t);
          const variants: Array<[Record<string, string>, string]> = [
            [{}, REALM],
            [{ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, REALM],
            [{ authorization: 'Bearer' }, `${REALM}, error="invalid_token"`],
            [{ authorization: 'Bearer two tokens' }, `${REALM}, error="invalid_token"`],
            [{ authorization: `Bearer pst_${'x'.repeat(43)}` }, `${REALM}, error="invalid_token"`],
            [{ authorization: key }, REALM], // key without the scheme
          ];
          for (const [headers, challenge] of variants) {
            const res = await app.inject({ method: op.method, url: op.url, headers, payload: 'payload' in op ? op.payload : undefined });
            assert.equal(res.statusCode, 401, `${JSON.stringify(headers)} → ${res.body}`);
            assert.deepEqual(res.json(), { code: 'unauthorized', message: res.json().message, status: 401 });
            assert.ok(res.json().message.length > 0);
            assert.equal(res.headers['www-authenticate'], challenge);
          }
          const [info] = await storage.apiKeys.list({ limit: 100, afterId: 0 });
          assert.equal(await revokeApiKey(storage, info.id, { now: new Date() }), true);
          const revoked = await app.inject({
            method: op.method,
            url: op.url,
            headers: { authorization: `Bearer ${key}` },
            payload: 'payload' in op ? op.payload : undefined,
          });
          assert.equal(revoked.statusCode, 401);
          assert.equal(revoked.headers['www-authenticate'], `${REALM}, error="invalid_token"`);
        });
      }

      test('the scheme name is case-insensitive', async (t) => {
        const { app, key } = await testApp(t);
        for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
          const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: { authorization: `${scheme} ${key}` } });
          assert.equal(res.statusCode, 200, scheme);
        }
      });

      test('HEAD of every GET operation is authenticated like the GET', async (t) => {
        const { app, auth } = await testApp(t);
        await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
        for (const op of OPERATIONS.filter((o) => o.method === 'GET')) {
          const refused = await app.inject({ method: 'HEAD', url: op.url });
          assert.equal(refused.statusCode, 401, op.url);
          assert.equal(refused.headers['www-authenticate'], REALM, op.url);
          assert.equal(refused.headers['cache-control'], 'no-store', op.url);
          const get = await app.inject({ method: 'GET', url: op.url, headers: auth });
          const head = await app.inject({ method: 'HEAD', url: op.url, headers: auth });
          assert.equal(head.statusCode, get.statusCode, op.url);
          assert.equal(head.body, '', op.url);
        }
        // The deprecated operation says so on HEAD too, refused or not.
        for (const headers of [{}, auth]) {
          const res = await app.inject({ method: 'HEAD', url: '/v1/pets/1', headers });
          assert.equal(res.headers.deprecation, '@1767225600');
          assert.ok(res.headers.sunset);
        }
      });

      test('authentication runs before validation: a malformed request without a key gets 401, not 400', async (t) => {
        const { app } = await testApp(t);
        const bad = [
          { method: 'POST', url: '/v1/pets', payload: { nope: true } },
          { method: 'POST', url: '/v1/pets', payload: '{not json', headers: { 'content-type': 'application/json' } },
          { method: 'POST', url: '/v1/pets', payload: 'x', headers: { 'content-type': 'text/plain' } },
          { method: 'GET', url: '/v1/pets?limit=0' },
          { method: 'GET', url: '/v1/pets/abc' },
          { method: 'GET', url: '/v1/no-such-thing' },
          { method: 'DELETE', url: '/v1/pets' },
        ] as const;
        for (const r of bad) {
          const res = await app.inject({
            method: r.method,
            url: r.url,
            payload: 'payload' in r ? r.payload : undefined,
            headers: 'headers' in r ? r.headers : {},
          });
          assert.equal(res.statusCode, 401, `${r.method} ${r.url}`);
        }
      });

      test('bootstrap keys from PETSTORE_API_KEYS are accepted', async (t) => {
        const { app } = await buildTestApp(t, { engine, env: { PETSTORE_API_KEYS: 'first-bootstrap-key-000, second-bootstrap-key-11' } });
        for (const k of ['first-bootstrap-key-000', 'second-bootstrap-key-11']) {
          const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: { authorization: `Bearer ${k}` } });
          assert.equal(res.statusCode, 200);
        }
        const other = await app.inject({ method: 'GET', url: '/v1/pets', headers: { authorization: 'Bearer third-bootstrap-key-22' } });
        assert.equal(other.statusCode, 401);
      });

      test('a revoked key is refused on the very next request', async (t) => {
        const { app, storage, auth } = await testApp(t);
        assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).statusCode, 200);
        const [info] = await storage.apiKeys.list({ limit: 100, afterId: 0 });
        await revokeApiKey(storage, info.id, { now: new Date() });
        assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).statusCode, 401);
      });

      test('the OpenAPI document and health endpoints need no key', async (t) => {
        const { app } = await testApp(t);
        for (const url of ['/v1/openapi.json', '/healthz', '/readyz']) {
          assert.equal((await app.inject({ method: 'GET', url })).statusCode, 200, url);
        }
      });

      test('keys are stored only as hashes', async (t) => {
        const { storage, key } = await testApp(t);
        const infos = await storage.apiKeys.list({ limit: 100, afterId: 0 });
        assert.equal(infos.length, 1);
        assert.ok(!JSON.stringify(infos).includes(key.slice(8)), 'list shows no secret');
        assert.match(key, /^pst_[A-Za-z0-9_-]{43}$/);
      });
    });
  });
}
