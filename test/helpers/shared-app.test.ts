// Tests that share one app (sharedTestApp) must each meet it as a new app: every row and every count put back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, sharedTestApp } from './app.ts';
import { ENGINES, openResettableEngine } from './engines.ts';
import { solid } from './images.ts';

/** Writes into every kind of table: pets (and their search index), photos, categories, orders, keys, webhooks and their deliveries, idempotency records. */
async function writeEverything(app: FastifyInstance, auth: { authorization: string }, { webhook = true } = {}): Promise<void> {
  const send = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, headers: Record<string, string> = {}) => {
    const res = await app.inject({ method, url, headers: { ...auth, ...headers }, payload });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.statusCode === 204 ? undefined : res.json();
  };
  if (webhook) await send('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['pet.created', 'pet.updated'] });
  const category = await send('POST', '/v1/categories', { name: 'Horses' });
  const pets = [];
  for (let i = 0; i < 5; i++)
    pets.push(await send('POST', '/v1/pets', { name: `Rex ${i}`, categoryId: category.id, price: { amount: 1000, currency: 'EUR' } }));
  await send('PATCH', `/v1/pets/${pets[0].id}`, { name: 'Renamed' }, { 'content-type': 'application/merge-patch+json', 'if-match': '*' });
  await send('DELETE', `/v1/pets/${pets[1].id}`);
  await send('POST', '/v1/store/orders', { petId: pets[2].id }, { 'idempotency-key': 'order-1' });
  await send('POST', '/v1/keys', { name: 'reader', scopes: ['pets:read'] });
  const photo = await app.inject({
    method: 'POST',
    url: `/v1/pets/${pets[3].id}/photos`,
    headers: { ...auth, 'content-type': 'image/png' },
    payload: await solid('png'),
  });
  assert.equal(photo.statusCode, 201, photo.body);
}

for (const engine of ENGINES) {
  test(`${engine}: a resettable database returns to its marked rows in every table`, async (t) => {
    const db = await openResettableEngine(engine);
    t.after(() => db.dispose());
    await t.test('built', async (t) => {
      await buildTestApp(t, { storage: db.storage });
    });
    await db.mark();
    const marked = await db.contents();
    await t.test('written', async (t) => {
      const { app, auth } = await buildTestApp(t, { storage: db.storage, env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1:*' } });
      await writeEverything(app, auth);
    });
    assert.notEqual(await db.contents(), marked, 'the writes changed the database');
    await db.reset();
    assert.equal(await db.contents(), marked);
  });

  describe(`${engine}: tests sharing one app`, () => {
    const shared = sharedTestApp(engine);
    /** What a test meets: the data, the next ids, its key's rate-limit count, and whether a wrong key is still answered 401. */
    const firstLook = async (app: FastifyInstance, auth: { authorization: string }) => {
      const get = async (url: string) => (await app.inject({ url, headers: auth })).json();
      const pets = await app.inject({ url: '/v1/pets', headers: auth });
      const created = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Probe', categoryId: 1 } });
      const category = await app.inject({ method: 'POST', url: '/v1/categories', headers: auth, payload: { name: 'Probes' } });
      const wrongKey = await app.inject({ url: '/v1/pets', headers: { authorization: 'Bearer petstore_wrong' } });
      return {
        rateLimit: pets.headers.ratelimit?.toString().replace(/, t=\d+|;t=\d+/, ''),
        pets: pets.json(),
        categories: await get('/v1/categories'),
        inventory: await get('/v1/store/inventory'),
        webhooks: await get('/v1/webhooks'),
        pet: created.json().id,
        category: category.json().id,
        wrongKey: wrongKey.statusCode,
      };
    };
    let first: unknown;
    // What the first test read last (so cached, where the engine caches): its key and a pet it made.
    let earlier: { auth: { authorization: string }; pet: string } | undefined;

    test('the first test writes (no webhooks: the default app refuses http URLs) and uses up the failed-authentication limit', async (t) => {
      const { app, auth } = await shared(t);
      first = await firstLook(app, auth);
      const again = await shared(t).then(
        () => 'shared twice',
        (err: Error) => err.message,
      );
      assert.match(again, /still in use/, 'one test at a time');
      await writeEverything(app, auth, { webhook: false });
      for (let i = 0; i < 20; i++) await app.inject({ url: '/v1/pets', headers: auth });
      const [latest] = (await app.inject({ url: '/v1/pets?sort=-id&limit=1', headers: auth })).json();
      const pet = `/v1/pets/${latest.id}`;
      assert.equal((await app.inject({ url: pet, headers: auth })).statusCode, 200);
      earlier = { auth, pet };
      const failures = [];
      for (let i = 0; i < 61; i++) failures.push((await app.inject({ url: '/v1/pets', headers: { authorization: 'Bearer petstore_wrong' } })).statusCode);
      assert.equal(failures.at(-1), 429, 'the address is blocked');
    });

    test('the next test meets what the first met: no rows, the same ids, fresh counts', async (t) => {
      const { app, auth } = await shared(t);
      assert.deepEqual(await firstLook(app, auth), first);
      assert.ok(earlier);
      assert.equal((await app.inject({ url: '/v1/pets', headers: earlier.auth })).statusCode, 401, "the first test's key is gone");
      assert.equal((await app.inject({ url: earlier.pet, headers: auth })).statusCode, 404, "the first test's pet is gone");
    });
  });
}
