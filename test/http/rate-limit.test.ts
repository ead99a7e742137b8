import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../helpers/process.ts';
import { buildTestApp, fixedClock } from '../helpers/app.ts';
import { redisSkipReason, startRedis } from '../helpers/redis.ts';

// 15 s into a minute: the window resets in 45 s.
const at = () => fixedClock(new Date('2026-03-01T10:00:15Z'));

describe('rate limit per API key', () => {
  test('every authenticated response carries RateLimit-Policy and RateLimit with the default 600/min', async (t) => {
    const { app, auth } = await buildTestApp(t, { clock: at() });
    const first = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
    assert.equal(first.headers['ratelimit-policy'], '"default";q=600;w=60');
    assert.equal(first.headers.ratelimit, '"default";r=599;t=45');
    const created = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
    assert.equal(created.headers.ratelimit, '"default";r=598;t=45');
    const missing = await app.inject({ method: 'GET', url: '/v1/pets/999', headers: auth });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers.ratelimit, '"default";r=597;t=45');
  });

  test('answers 429 rate_limited with Retry-After past the limit, per key, until the window resets', async (t) => {
    const clock = at();
    const { app, auth, storage } = await buildTestApp(t, { clock, env: { RATE_LIMIT_PER_MINUTE: '3' } });
    for (const r of [2, 1, 0]) {
      const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers.ratelimit, `"default";r=${r};t=45`);
    }
    const limited = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
    assert.equal(limited.statusCode, 429);
    assert.deepEqual(limited.json(), {
      code: 'rate_limited',
      message: 'this API key and the keys of its tree made more than 3 requests in 60 s; retry in 45 s',
      status: 429,
    });
    assert.equal(limited.headers['retry-after'], '45');
    assert.equal(limited.headers['ratelimit-policy'], '"default";q=3;w=60');
    assert.equal(limited.headers.ratelimit, '"default";r=0;t=45');

    const { createApiKey } = await import('../../src/keys/key.service.ts');
    const other = await createApiKey(storage, 'other', ['pets:read']);
    assert.equal(
      (await app.inject({ method: 'GET', url: '/v1/pets', headers: { authorization: `Bearer ${other.key}` } })).statusCode,
      200,
      'another key has its own budget',
    );

    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /^petstore_http_rate_limited_total\{limiter="key"\} 1$/m);

    clock.set(new Date('2026-03-01T10:01:00Z'));
    const next = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
    assert.equal(next.statusCode, 200);
    assert.equal(next.headers.ratelimit, '"default";r=2;t=60');
  });

  test("a key tree shares one budget: keys minted to spread requests count against their tree's root", async (t) => {
    const { app, auth, storage } = await buildTestApp(t, { clock: at(), env: { RATE_LIMIT_PER_MINUTE: '3' } });
    const { createApiKey } = await import('../../src/keys/key.service.ts');
    // A key the operator made (top-level) starts a tree; so does one an owner key makes.
    const root = await createApiKey(storage, 'integration', ['pets:read', 'keys:admin']);
    const rootAuth = { authorization: `Bearer ${root.key}` };
    const minted = await app.inject({ method: 'POST', url: '/v1/keys', headers: rootAuth, payload: { name: 'spread', scopes: ['pets:read'] } });
    assert.equal(minted.statusCode, 201);
    assert.equal(minted.headers.ratelimit, '"default";r=2;t=45');
    const child = { authorization: `Bearer ${minted.json().key}` };
    assert.equal(
      (await app.inject({ method: 'GET', url: '/v1/pets', headers: child })).headers.ratelimit,
      '"default";r=1;t=45',
      "the child uses its root's budget",
    );
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: child })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: child })).statusCode, 429);
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: rootAuth })).statusCode, 429, 'the root too');
    const byOwner = await app.inject({ method: 'POST', url: '/v1/keys', headers: auth, payload: { name: 'own tree', scopes: ['pets:read'] } });
    const other = { authorization: `Bearer ${byOwner.json().key}` };
    assert.equal(
      (await app.inject({ method: 'GET', url: '/v1/pets', headers: other })).headers.ratelimit,
      '"default";r=2;t=45',
      'a key an owner key makes starts its own tree',
    );
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).headers.ratelimit, '"default";r=1;t=45', "the owner key's own count");
  });

  test('bootstrap keys are limited per key too', async (t) => {
    const keys = ['bootstrap-key-one-0123456789', 'bootstrap-key-two-0123456789'];
    const { app } = await buildTestApp(t, { clock: at(), env: { RATE_LIMIT_PER_MINUTE: '1', PETSTORE_API_KEYS: keys.join(',') } });
    const [one, two] = keys.map((k) => ({ authorization: `Bearer ${k}` }));
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: one })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: one })).statusCode, 429);
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: two })).statusCode, 200);
  });

  test('RATE_LIMIT_PER_MINUTE=0 disables the limit and its headers', async (t) => {
    const { app, auth } = await buildTestApp(t, { clock: at(), env: { RATE_LIMIT_PER_MINUTE: '0' } });
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers.ratelimit, undefined);
      assert.equal(res.headers['ratelimit-policy'], undefined);
    }
  });

  test('instances without REDIS_URL count separately', async (t) => {
    const clock = at();
    const a = await buildTestApp(t, { clock, env: { RATE_LIMIT_PER_MINUTE: '2' } });
    const b = await buildTestApp(t, { clock, env: { RATE_LIMIT_PER_MINUTE: '2' }, storage: a.storage });
    for (const app of [a.app, a.app, b.app, b.app]) assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: a.auth })).statusCode, 200);
    assert.equal((await a.app.inject({ method: 'GET', url: '/v1/pets', headers: a.auth })).statusCode, 429);
  });
});

describe('failed-authentication limit per client address', () => {
  test('after the limit an address gets 429 with Retry-After, except for valid generated keys; other addresses are unaffected', async (t) => {
    const clock = at();
    const bootstrap = 'a-short-bootstrap-key';
    const { app, auth } = await buildTestApp(t, { clock, env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '5', PETSTORE_API_KEYS: bootstrap } });
    const from = (remoteAddress: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/v1/pets', headers, remoteAddress });
    for (let i = 0; i < 5; i++) {
      const res = await from('203.0.113.7', i % 2 ? { authorization: `Bearer pst_guess${i}` } : { authorization: 'Bearer' });
      assert.equal(res.statusCode, 401);
    }
    const limited = await from('203.0.113.7', { authorization: 'Bearer pst_guess6' });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'rate_limited');
    assert.equal(limited.headers['retry-after'], '45');
    // A shop's NAT: the valid keys behind the address keep working (issue 34, item 5). A generated
    // key is 256 random bits, so letting it pass teaches a guesser nothing.
    const valid = await from('203.0.113.7', auth);
    assert.equal(valid.statusCode, 200, valid.body);
    const shaped = await from('203.0.113.7', { authorization: `Bearer pst_${'A'.repeat(43)}` });
    assert.equal(shaped.statusCode, 429, 'a wrong key of the same shape is still refused as over the limit');
    assert.equal((await from('203.0.113.7', { authorization: `Bearer ${bootstrap}` })).statusCode, 429, 'a bootstrap key may be short: not looked at');
    assert.equal((await from('203.0.113.7')).statusCode, 429);
    assert.equal((await from('203.0.113.8', auth)).statusCode, 200);
    assert.equal((await from('203.0.113.8')).statusCode, 401);
    assert.match((await app.inject({ method: 'GET', url: '/metrics' })).body, /^petstore_http_rate_limited_total\{limiter="auth_failure"\} 4$/m);

    clock.set(new Date('2026-03-01T10:01:00Z'));
    assert.equal((await from('203.0.113.7', auth)).statusCode, 200);
  });

  test('requests without credentials get 401 and do not use up the failure budget (they cannot guess a key)', async (t) => {
    const { app, auth } = await buildTestApp(t, { clock: at(), env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '2' } });
    const from = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/v1/pets', headers, remoteAddress: '203.0.113.9' });
    for (let i = 0; i < 10; i++) {
      assert.equal((await from({})).statusCode, 401);
      assert.equal((await from({ authorization: 'Basic dXNlcjpwYXNz' })).statusCode, 401);
    }
    assert.equal((await from(auth)).statusCode, 200);
    assert.equal((await from({ authorization: 'Bearer pst_guess1' })).statusCode, 401);
    assert.equal((await from({ authorization: 'Bearer pst_guess2' })).statusCode, 401);
    assert.equal((await from({ authorization: 'Bearer pst_guess3' })).statusCode, 429, 'presented tokens still count');
  });

  test('successful requests do not use up the failure budget', async (t) => {
    const { app, auth } = await buildTestApp(t, { clock: at(), env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '2' } });
    for (let i = 0; i < 10; i++) assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets' })).statusCode, 401);
  });
});

const skip = redisSkipReason();
describe('rate limit shared through Redis', { skip }, () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis.stop());

  test('two instances with the same REDIS_URL share one budget per key and per address', async (t) => {
    const clock = at();
    const env = { RATE_LIMIT_PER_MINUTE: '3', AUTH_FAILURE_LIMIT_PER_MINUTE: '2', REDIS_URL: redis.url };
    const a = await buildTestApp(t, { clock, env });
    const b = await buildTestApp(t, { clock, env, storage: a.storage });
    const get = (app: typeof a.app, headers = a.auth) => app.inject({ method: 'GET', url: '/v1/pets', headers, remoteAddress: '198.51.100.1' });
    assert.equal((await get(a.app)).headers.ratelimit, '"default";r=2;t=45');
    assert.equal((await get(b.app)).headers.ratelimit, '"default";r=1;t=45');
    assert.equal((await get(a.app)).headers.ratelimit, '"default";r=0;t=45');
    const limited = await get(b.app);
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '45');

    const bad = { authorization: 'Bearer pst_nope' };
    assert.equal((await get(a.app, bad)).statusCode, 401);
    assert.equal((await get(b.app, bad)).statusCode, 401);
    assert.equal((await get(a.app, bad)).statusCode, 429);
  });

  test('when Redis is unreachable, requests are let through rather than refused', async (t) => {
    const port = await freePort(); // nothing listens here
    const { app, auth } = await buildTestApp(t, { clock: at(), env: { RATE_LIMIT_PER_MINUTE: '1', REDIS_URL: `redis://127.0.0.1:${port}` } });
    for (let i = 0; i < 3; i++) assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).statusCode, 200);
  });
});
