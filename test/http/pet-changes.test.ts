// Changing and withdrawing animals, the categoryId filter and the inventory, through the real app
// (inject), on every engine. Entity tags and conditional requests: conditional.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';

/** A listing's pets without their `etag` member (each is its own representation's ETag: test/http/pets-by-id.test.ts). */
const untagged = (pets: { etag?: string }[]) => pets.map(({ etag, ...pet }) => pet);

type Auth = { authorization: string };

async function newPet(
  app: FastifyInstance,
  auth: Auth,
  body: object = {},
): Promise<{ id: number; name: string; categoryId: number; status: string; updatedAt: string }> {
  const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1, ...body } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

const patch = (app: FastifyInstance, auth: Auth, id: number, payload: unknown, type = 'application/merge-patch+json') =>
  app.inject({ method: 'PATCH', url: `/v1/pets/${id}`, headers: { ...auth, 'content-type': type }, payload: JSON.stringify(payload) });

const inventory = async (app: FastifyInstance, auth: Auth) => {
  const res = await app.inject({ method: 'GET', url: '/v1/store/inventory', headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

for (const engine of ENGINES) {
  describe(`${engine}: PATCH /v1/pets/{petId}`, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    test('sets the fields given, keeps the others, and answers 200 with the pet; as merge patch or as JSON', async (t) => {
      const { app, auth } = await testApp(t);
      const pet = await newPet(app, auth);
      const renamed = await patch(app, auth, pet.id, { name: 'Rex II' });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.deepEqual(renamed.json(), { ...pet, name: 'Rex II', updatedAt: renamed.json().updatedAt });
      assert.ok(renamed.json().updatedAt >= pet.updatedAt, 'updatedAt moves with a change');
      assert.match(String(renamed.headers['content-type']), /^application\/json/);
      const moved = await patch(app, auth, pet.id, { categoryId: 3, status: 'sold' }, 'application/json; charset=utf-8');
      assert.equal(moved.statusCode, 200);
      assert.deepEqual(moved.json(), { ...pet, name: 'Rex II', categoryId: 3, status: 'sold', updatedAt: moved.json().updatedAt });
      const read = await app.inject({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: auth });
      assert.deepEqual(read.json(), moved.json());
    });

    const invalid: Array<[string, unknown, RegExp]> = [
      ['an empty patch', {}, /request body must set at least 1 field/],
      ['an unknown field', { name: 'x', weight: 12 }, /"weight" is not allowed/],
      ['id', { id: 9 }, /"id" is not allowed/],
      ['null (nothing here can be removed)', { name: null }, /"name" must be of type string/],
      ['a blank name', { name: '  ' }, /"name" must not be blank/],
      ['a name too long', { name: 'x'.repeat(101) }, /"name" must be at most 100 characters/],
      ['categoryId as a string', { categoryId: '2' }, /"categoryId" must be of type integer/],
      ['categoryId zero', { categoryId: 0 }, /"categoryId" must be >= 1/],
      ['an unknown status', { status: 'lost' }, /"status" must be one of: available, pending, sold/],
      ['an array', [{ name: 'x' }], /request body must be a JSON object/],
    ];
    for (const [what, payload, message] of invalid) {
      test(`refuses ${what} with 400 validation_failed naming the field, changing nothing`, async (t) => {
        const { app, auth } = await testApp(t);
        const pet = await newPet(app, auth);
        const res = await patch(app, auth, pet.id, payload);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().code, 'validation_failed');
        assert.match(res.json().message, message);
        assert.deepEqual((await app.inject({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: auth })).json(), pet);
      });
    }

    test('an unknown category → 400 unknown_category; an unknown or withdrawn pet → 404; a bad id → 400', async (t) => {
      const { app, auth } = await testApp(t);
      const pet = await newPet(app, auth);
      const unknown = await patch(app, auth, pet.id, { categoryId: 999 });
      assert.equal(unknown.statusCode, 400);
      assert.equal(unknown.json().code, 'unknown_category');
      assert.deepEqual((await patch(app, auth, 4242, { name: 'x' })).json(), { code: 'not_found', message: 'pet 4242 does not exist', status: 404 });
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${pet.id}`, headers: auth })).statusCode, 204);
      assert.equal((await patch(app, auth, pet.id, { name: 'x' })).statusCode, 404);
      assert.equal((await patch(app, auth, 0, { name: 'x' })).json().code, 'validation_failed');
    });

    test('while an order is open, a status change → 409 pet_has_open_order; the name may change', async (t) => {
      const { app, auth } = await testApp(t);
      const pet = await newPet(app, auth);
      await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: pet.id } });
      const refused = await patch(app, auth, pet.id, { status: 'available' });
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json().code, 'pet_has_open_order');
      assert.equal((await patch(app, auth, pet.id, { name: 'Rex II' })).json().status, 'pending');
    });

    test('only PATCH takes application/merge-patch+json; other media types → 415', async (t) => {
      const { app, auth } = await testApp(t);
      const pet = await newPet(app, auth);
      assert.equal((await patch(app, auth, pet.id, { name: 'x' }, 'text/plain')).statusCode, 415);
      const post = await app.inject({
        method: 'POST',
        url: '/v1/pets',
        headers: { ...auth, 'content-type': 'application/merge-patch+json' },
        payload: '{"name":"x","categoryId":1}',
      });
      assert.equal(post.statusCode, 415);
      assert.equal(post.json().code, 'unsupported_media_type');
      const order = await app.inject({
        method: 'PATCH',
        url: '/v1/store/orders/1',
        headers: { ...auth, 'content-type': 'application/merge-patch+json' },
        payload: '{"status":"approved"}',
      });
      assert.equal(order.statusCode, 415, 'updateOrder is not a merge patch');
      assert.equal((await patch(app, auth, pet.id, '{"name":', 'application/merge-patch+json')).statusCode, 400);
    });

    test('authentication comes before validation (401), the scope before the body (403)', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const pet = await newPet(app, auth);
      assert.equal((await patch(app, {} as Auth, pet.id, { bogus: true })).statusCode, 401);
      const reader = await keyWithScopes(storage, ['pets:read']);
      assert.equal((await patch(app, reader, pet.id, { bogus: true })).statusCode, 403);
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${pet.id}`, headers: reader })).statusCode, 403);
      assert.equal((await app.inject({ method: 'DELETE', url: '/v1/pets/nope' })).statusCode, 401);
    });
  });

  describe(`${engine}: DELETE /v1/pets/{petId}`, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    test('204 without a body; the pet is gone from getPet, listings and inventory; its orders stay readable; placeOrder → unknown_pet', async (t) => {
      const { app, auth } = await testApp(t);
      const pet = await newPet(app, auth);
      const kept = await newPet(app, auth, { name: 'Kept' });
      const order = (await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: pet.id } })).json();
      await app.inject({ method: 'PATCH', url: `/v1/store/orders/${order.id}`, headers: auth, payload: { status: 'cancelled' } });
      const res = await app.inject({ method: 'DELETE', url: `/v1/pets/${pet.id}`, headers: auth });
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, '');
      assert.equal(res.headers['content-type'], undefined);
      assert.equal((await app.inject({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: auth })).statusCode, 404);
      assert.deepEqual(untagged((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).json()), [kept]);
      assert.deepEqual(untagged((await app.inject({ method: 'GET', url: '/v1/pets?categoryId=1&status=available', headers: auth })).json()), [kept]);
      assert.deepEqual(await inventory(app, auth), { available: 1, pending: 0, sold: 0, availableValue: { EUR: 0 } });
      assert.equal((await app.inject({ method: 'GET', url: `/v1/store/orders/${order.id}`, headers: auth })).json().status, 'cancelled');
      assert.equal((await app.inject({ method: 'GET', url: `/v1/store/orders?petId=${pet.id}`, headers: auth })).json().length, 1);
      const again = await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: pet.id } });
      assert.equal(again.statusCode, 400);
      assert.equal(again.json().code, 'unknown_pet');
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${pet.id}`, headers: auth })).statusCode, 404, 'deleting twice');
      // Clients that label every request JSON send an empty body with a DELETE: that is no body.
      const labelled = await app.inject({
        method: 'DELETE',
        url: `/v1/pets/${kept.id}`,
        headers: { ...auth, 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(labelled.statusCode, 204, labelled.body);
      // A body sent anyway must be JSON, as documented (400, 415), and is ignored.
      const other = await newPet(app, auth, { name: 'Other' });
      const url = `/v1/pets/${other.id}`;
      assert.equal((await app.inject({ method: 'DELETE', url, headers: { ...auth, 'content-type': 'text/plain' }, payload: 'x' })).statusCode, 415);
      assert.equal(
        (await app.inject({ method: 'DELETE', url, headers: { ...auth, 'content-type': 'application/json' }, payload: '{bad' })).json().code,
        'invalid_json',
      );
      assert.equal((await app.inject({ method: 'DELETE', url, headers: auth, payload: { reason: 'adopted' } })).statusCode, 204);
      assert.ok((await newPet(app, auth)).id > kept.id, 'ids are never reused');
    });

    test('a pet with an open order → 409 pet_has_open_order, and stays', async (t) => {
      const { app, auth } = await testApp(t);
      const pet = await newPet(app, auth);
      await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: pet.id } });
      const res = await app.inject({ method: 'DELETE', url: `/v1/pets/${pet.id}`, headers: auth });
      assert.equal(res.statusCode, 409);
      assert.deepEqual(Object.keys(res.json()).sort(), ['code', 'message', 'status']);
      assert.equal(res.json().code, 'pet_has_open_order');
      assert.equal((await app.inject({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: auth })).statusCode, 200);
    });
  });

  describe(`${engine}: listPets categoryId`, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    test('filters by category, alone and with status; Link rel="next" keeps it; its cursor is bound to it', async (t) => {
      const { app, auth } = await testApp(t);
      const made = [];
      for (let i = 0; i < 9; i++) made.push(await newPet(app, auth, { name: `p${i}`, categoryId: 1 + (i % 3), status: i % 2 ? 'sold' : 'available' }));
      const inTwo = made.filter((p) => p.categoryId === 2);
      const first = await app.inject({ method: 'GET', url: '/v1/pets?categoryId=2&limit=2', headers: auth });
      assert.deepEqual(untagged(first.json()), inTwo.slice(0, 2));
      const next = /^<([^>]+)>; rel="next"$/.exec(String(first.headers.link))?.[1];
      assert.match(String(next), /^\/v1\/pets\?limit=2&categoryId=2&cursor=/);
      assert.deepEqual(untagged((await app.inject({ method: 'GET', url: next!, headers: auth })).json()), inTwo.slice(2));
      const both = await app.inject({ method: 'GET', url: '/v1/pets?status=sold&categoryId=2', headers: auth });
      assert.deepEqual(
        untagged(both.json()),
        inTwo.filter((p) => p.status === 'sold'),
      );
      const cursor = new URL(next!, 'http://x').searchParams.get('cursor');
      for (const url of [`/v1/pets?categoryId=3&limit=2&cursor=${cursor}`, `/v1/pets?limit=2&cursor=${cursor}`]) {
        const foreign = await app.inject({ method: 'GET', url, headers: auth });
        assert.equal(foreign.statusCode, 400, url);
        assert.equal(foreign.json().code, 'invalid_cursor');
      }
      // Cursors without the filter keep working as they did before it existed.
      const plain = await app.inject({ method: 'GET', url: '/v1/pets?status=sold&limit=1', headers: auth });
      const plainNext = /^<([^>]+)>/.exec(String(plain.headers.link))![1];
      assert.doesNotMatch(plainNext, /categoryId/);
      assert.equal((await app.inject({ method: 'GET', url: plainNext, headers: auth })).statusCode, 200);
    });

    test('categoryId must be an integer ≥ 1; an unknown category lists nothing; unknown parameters stay 400', async (t) => {
      const { app, auth } = await testApp(t);
      for (const q of ['categoryId=0', 'categoryId=x', 'categoryId=1.5', 'categoryId=1&categoryId=2', 'category=1']) {
        const res = await app.inject({ method: 'GET', url: `/v1/pets?${q}`, headers: auth });
        assert.equal(res.statusCode, 400, q);
        assert.equal(res.json().code, 'validation_failed', q);
      }
      assert.deepEqual((await app.inject({ method: 'GET', url: '/v1/pets?categoryId=999', headers: auth })).json(), []);
    });
  });

  describe(`${engine}: GET /v1/store/inventory`, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    test('counts every status, all three keys always present, following orders and changes', async (t) => {
      const { app, auth, storage } = await testApp(t);
      assert.deepEqual(await inventory(app, auth), { available: 0, pending: 0, sold: 0, availableValue: { EUR: 0 } });
      const a = await newPet(app, auth);
      await newPet(app, auth, { status: 'sold' });
      const order = (await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: a.id } })).json();
      assert.deepEqual(await inventory(app, auth), { available: 0, pending: 1, sold: 1, availableValue: { EUR: 0 } });
      await app.inject({ method: 'PATCH', url: `/v1/store/orders/${order.id}`, headers: auth, payload: { status: 'cancelled' } });
      assert.deepEqual(await inventory(app, auth), { available: 1, pending: 0, sold: 1, availableValue: { EUR: 0 } });
      const reader = await keyWithScopes(storage, ['pets:read']);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/store/inventory', headers: reader })).statusCode, 200);
      const ordersOnly = await keyWithScopes(storage, ['orders:read']);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/store/inventory', headers: ordersOnly })).statusCode, 403);
    });

    test('read during 200 concurrent status changes over HTTP, it always sums to the number of pets', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine, env: { RATE_LIMIT_PER_MINUTE: '0' } });
      const ids: number[] = [];
      for (let i = 0; i < 20; i++) ids.push((await newPet(app, auth, { name: `p${i}` })).id);
      const statuses = ['available', 'pending', 'sold'];
      const sums = new Set<number>();
      let reads = 0;
      let writing = true;
      const reader = (async () => {
        while (writing) {
          const inv = await inventory(app, auth);
          sums.add(inv.available + inv.pending + inv.sold);
          reads++;
          // Yield to the event loop: SQLite's writes commit from a setImmediate.
          await new Promise((r) => setImmediate(r));
        }
      })();
      const writes = [];
      try {
        for (let i = 0; i < 200; i++) {
          writes.push(patch(app, auth, ids[i % ids.length], { status: statuses[(i * 5) % 3] }));
          if (i % 20 === 19) await new Promise((r) => setImmediate(r));
        }
        for (const res of await Promise.all(writes)) assert.equal(res.statusCode, 200, res.body);
      } finally {
        writing = false;
        await reader;
      }
      assert.ok(reads > 1, `${reads} reads`);
      assert.deepEqual([...sums], [20]);
    });
  });
}
