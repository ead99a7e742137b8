// The webhook endpoints API through the real app: shapes, paging, errors, scopes, and the SSRF
// rules at registration (no request ever leaves this machine: refused URLs are never called and
// accepted public ones get no event to send).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_SCOPES } from '../../src/keys/key.types.ts';
import { buildTestApp, keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';
import { TEST_ENV } from './helpers.ts';

const PUBLIC = '93.184.216.34';
// Host names the tests resolve themselves: nothing is looked up on the network.
const NAMES: Record<string, string[]> = {
  'public.test': [PUBLIC],
  'localhost.test': ['127.0.0.1', '::1'],
  'mixed.test': [PUBLIC, '10.1.2.3'],
  'metadata.test': ['169.254.169.254'],
};
const resolve = async (host: string) => {
  const addresses = NAMES[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

for (const engine of ENGINES) {
  describe(`${engine}: webhook endpoints API`, () => {
    // One app for the tests that need the same one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine, { env: TEST_ENV, webhooks: { resolve } });
    test('create → 201 with Location and the secret once; get, list and patch never show it; delete → 204, then 404', async (t) => {
      const { app, auth } = await testApp(t);
      const res = await app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: auth,
        payload: { url: 'https://public.test/hooks?shop=1', events: ['pet.created'], description: 'Shop' },
      });
      assert.equal(res.statusCode, 201, res.body);
      const created = res.json();
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(Buffer.from(created.secret.slice(6), 'base64').length, 32);
      assert.equal(res.headers.location, `/v1/webhooks/${created.id}`);
      const { secret, ...webhook } = created;
      assert.deepEqual(webhook, {
        id: created.id,
        url: 'https://public.test/hooks?shop=1',
        events: ['pet.created'],
        description: 'Shop',
        enabled: true,
        keyId: 1, // the test's key: the first stored
        createdAt: created.createdAt,
      });
      const got = await app.inject({ method: 'GET', url: `/v1/webhooks/${created.id}`, headers: auth });
      assert.deepEqual(got.json(), webhook);
      const patched = await app.inject({
        method: 'PATCH',
        url: `/v1/webhooks/${created.id}`,
        headers: auth,
        payload: { events: null, description: null, enabled: false },
      });
      assert.deepEqual(patched.json(), { ...webhook, events: null, description: null, enabled: false });
      const all = await app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: 'https://public.test/b' } });
      assert.equal(all.json().events, null, 'no events: every type');
      assert.notEqual(all.json().secret, secret);
      for (const r of [got, patched]) assert.ok(!r.body.includes(secret.slice(6)));
      const del = await app.inject({ method: 'DELETE', url: `/v1/webhooks/${created.id}`, headers: auth });
      assert.equal(del.statusCode, 204);
      assert.equal(del.body, '');
      for (const [method, url] of [
        ['GET', `/v1/webhooks/${created.id}`],
        ['DELETE', `/v1/webhooks/${created.id}`],
        ['PATCH', `/v1/webhooks/${created.id}`],
        ['POST', `/v1/webhooks/${created.id}/rotate-secret`],
        ['GET', `/v1/webhooks/${created.id}/deliveries`],
        ['POST', `/v1/webhooks/${created.id}/deliveries/1/retry`],
      ] as const) {
        const r = await app.inject({ method, url, headers: auth, ...(method === 'PATCH' ? { payload: { enabled: true } } : {}) });
        assert.equal(r.statusCode, 404, `${method} ${url}`);
        assert.equal(r.json().code, 'not_found');
      }
    });

    test('lists page with Link rel="next", the delivery log newest first', async (t) => {
      const { app, auth } = await testApp(t);
      const ids = [];
      for (let i = 0; i < 3; i++)
        ids.push((await app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: `https://public.test/${i}` } })).json().id);
      const first = await app.inject({ method: 'GET', url: '/v1/webhooks?limit=2', headers: auth });
      assert.deepEqual(
        first.json().map((w: { id: number }) => w.id),
        ids.slice(0, 2),
      );
      const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1];
      assert.match(next, /^\/v1\/webhooks\?limit=2&cursor=/);
      const second = await app.inject({ method: 'GET', url: next, headers: auth });
      assert.deepEqual(
        second.json().map((w: { id: number }) => w.id),
        ids.slice(2),
      );
      assert.equal(second.headers.link, undefined);
      // Disabled endpoints get no deliveries: pause two and give the third three events.
      for (const id of ids.slice(0, 2)) await app.inject({ method: 'PATCH', url: `/v1/webhooks/${id}`, headers: auth, payload: { enabled: false } });
      await app.inject({ method: 'PATCH', url: `/v1/webhooks/${ids[2]}`, headers: auth, payload: { enabled: false } });
      const log = await app.inject({ method: 'GET', url: `/v1/webhooks/${ids[2]}/deliveries`, headers: auth });
      assert.deepEqual(log.json(), []);
      const bad = await app.inject({ method: 'GET', url: `/v1/webhooks/${ids[2]}/deliveries?cursor=${next.split('cursor=')[1]}`, headers: auth });
      assert.equal(bad.json().code, 'invalid_cursor', "another listing's cursor");
    });

    test('invalid bodies → 400 naming the field; the URL rules → 400 webhook_url_not_allowed', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine, env: { RATE_LIMIT_PER_MINUTE: '0' }, webhooks: { resolve } });
      const post = (payload: unknown) => app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: payload as object });
      const cases: [unknown, string, RegExp][] = [
        [{}, 'validation_failed', /"url" is required/],
        [{ url: 'not a url' }, 'validation_failed', /"url"/],
        [{ url: 'https://public.test:99999/' }, 'validation_failed', /"url" must be an absolute URL/],
        [{ url: 'https://public.test/', events: [] }, 'validation_failed', /"events"/],
        [{ url: 'https://public.test/', events: ['pet.eaten'] }, 'validation_failed', /"events/],
        [{ url: 'https://public.test/', events: ['pet.created', 'pet.created'] }, 'validation_failed', /"events"/],
        [{ url: 'https://public.test/', secret: 'mine' }, 'validation_failed', /"secret" is not allowed/],
        [{ url: 'https://public.test/', description: ' ' }, 'validation_failed', /"description"/],
        [{ url: 'http://public.test/' }, 'webhook_url_not_allowed', /scheme must be https:/],
        [{ url: 'ftp://public.test/' }, 'webhook_url_not_allowed', /scheme/],
        [{ url: 'https://user:pw@public.test/' }, 'webhook_url_not_allowed', /credentials/],
        [{ url: 'https://public.test/#x' }, 'webhook_url_not_allowed', /fragment/],
        [{ url: 'https://nowhere.test/' }, 'webhook_url_not_allowed', /does not resolve/],
      ];
      for (const [payload, code, message] of cases) {
        const res = await post(payload);
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.equal(res.json().code, code, JSON.stringify(payload));
        assert.match(res.json().message, message, JSON.stringify(payload));
      }
      const created = (await post({ url: 'https://public.test/' })).json();
      const patch = (payload: unknown) => app.inject({ method: 'PATCH', url: `/v1/webhooks/${created.id}`, headers: auth, payload: payload as object });
      assert.equal((await patch({})).json().code, 'validation_failed');
      assert.equal((await patch({ enabled: 'yes' })).json().code, 'validation_failed');
      assert.equal((await patch({ url: 'https://metadata.test/' })).json().code, 'webhook_url_not_allowed');
    });

    test('SSRF: registration refuses every host that is or resolves to a non-public address, in every spelling', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine, env: { RATE_LIMIT_PER_MINUTE: '0' }, webhooks: { resolve } });
      const refused: [string, RegExp][] = [
        ['https://127.0.0.1/', /loopback/],
        ['https://127.1.2.3:8443/x', /loopback/],
        ['https://2130706433/', /127\.0\.0\.1 \(loopback\)/], // decimal spelling, normalised by the URL parser
        ['https://0x7f.0.0.1/', /127\.0\.0\.1 \(loopback\)/],
        ['https://[::1]/', /loopback/],
        ['https://10.0.0.1/', /private/],
        ['https://172.16.5.4/', /private/],
        ['https://192.168.1.1/', /private/],
        ['https://[fd00::1]/', /unique local/],
        ['https://[fc00::5]/', /unique local/],
        ['https://169.254.169.254/latest/meta-data/', /link-local/],
        ['https://[fe80::1]/', /link-local/],
        ['https://100.64.0.1/', /carrier-grade NAT/],
        ['https://224.0.0.1/', /multicast/],
        ['https://[ff02::1]/', /multicast/],
        ['https://0.0.0.0/', /unspecified/],
        ['https://[::]/', /unspecified/],
        ['https://255.255.255.255/', /broadcast/],
        ['https://[::ffff:127.0.0.1]/', /loopback: it carries the IPv4 address 127\.0\.0\.1/],
        ['https://[::ffff:a9fe:a9fe]/', /link-local.*169\.254\.169\.254/],
        ['https://[::ffff:10.0.0.1]/', /private/],
        ['https://[64:ff9b::a00:1]/', /private.*10\.0\.0\.1/],
        ['https://[2002:c0a8:101::1]/', /private.*192\.168\.1\.1/],
        // A name's refusal does not tell what this service's resolver answered (issue 34, item 6).
        ['https://localhost.test/', /its host localhost\.test is not a public address \(it resolves to one that is not\)$/],
        ['https://mixed.test/', /its host mixed\.test is not a public address/],
        ['https://metadata.test/', /its host metadata\.test is not a public address/],
      ];
      for (const [url, why] of refused) {
        const res = await app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url } });
        assert.equal(res.statusCode, 400, url);
        assert.equal(res.json().code, 'webhook_url_not_allowed', url);
        assert.match(res.json().message, why, url);
        if (url.endsWith('.test/')) assert.doesNotMatch(res.json().message, /127\.0\.0\.1|10\.1\.2\.3|169\.254|loopback|private|link-local/, url);
      }
      for (const url of [`https://${PUBLIC}/`, 'https://public.test/', 'https://[2606:4700::1111]/']) {
        const res = await app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url } });
        assert.equal(res.statusCode, 201, `${url}: ${res.body}`);
      }
    });

    test('WEBHOOK_ALLOWED_HOSTS exempts the hosts and addresses it lists; http: needs WEBHOOK_ALLOW_HTTP', async (t) => {
      const { app, auth } = await buildTestApp(t, {
        engine,
        env: { WEBHOOK_ALLOWED_HOSTS: 'localhost.test,10.9.9.9', RATE_LIMIT_PER_MINUTE: '0' },
        webhooks: { resolve },
      });
      for (const url of ['https://localhost.test/', 'https://10.9.9.9/']) {
        assert.equal((await app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url } })).statusCode, 201, url);
      }
      assert.equal((await app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: 'https://10.9.9.8/' } })).statusCode, 400);
      assert.equal(
        (await app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: 'http://localhost.test/' } })).json().code,
        'webhook_url_not_allowed',
      );
    });

    test('the webhook operations need webhooks:admin, which new keys get only when asked for', async (t) => {
      const { app, storage, auth } = await testApp(t);
      const created = (await app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: 'https://public.test/' } })).json();
      const defaults = await keyWithScopes(storage, DEFAULT_SCOPES);
      for (const [method, url] of [
        ['POST', '/v1/webhooks'],
        ['GET', '/v1/webhooks'],
        ['GET', `/v1/webhooks/${created.id}`],
        ['PATCH', `/v1/webhooks/${created.id}`],
        ['DELETE', `/v1/webhooks/${created.id}`],
        ['POST', `/v1/webhooks/${created.id}/rotate-secret`],
        ['GET', `/v1/webhooks/${created.id}/deliveries`],
        ['POST', `/v1/webhooks/${created.id}/deliveries/1/retry`],
      ] as const) {
        const res = await app.inject({ method, url, headers: defaults, payload: method === 'POST' || method === 'PATCH' ? { bogus: true } : undefined });
        assert.equal(res.statusCode, 403, `${method} ${url}`);
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="petstore", error="insufficient_scope", scope="webhooks:admin"');
      }
      const admin = await keyWithScopes(storage, ['webhooks:admin']);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/webhooks', headers: admin })).statusCode, 200);
    });

    test('retry refuses a disabled endpoint with 409 webhook_disabled', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine, env: TEST_ENV, webhooks: { resolve, pollMs: 60_000 } });
      const hook = (await app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: 'https://public.test/' } })).json();
      // Disabled before any attempt: the pending first attempt is dropped, never sent.
      await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
      await app.inject({ method: 'PATCH', url: `/v1/webhooks/${hook.id}`, headers: auth, payload: { enabled: false } });
      const [entry] = (await app.inject({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, headers: auth })).json();
      assert.deepEqual([entry.status, entry.error], ['failed', 'not attempted: the endpoint was disabled']);
      const res = await app.inject({ method: 'POST', url: `/v1/webhooks/${hook.id}/deliveries/${entry.id}/retry`, headers: auth });
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().code, 'webhook_disabled');
    });
  });
}
