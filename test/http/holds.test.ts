// Holds through the real app, on every engine: one live hold per animal (50 concurrent attempts),
// cancel with the deposit's fate, convert into the customer's order carrying the deposit, the
// listing, what a hold forbids meanwhile, and the expiry job — exactly once with two instances on
// one database, the clock driven by the test.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createCustomer } from '../../src/customers/customer.service.ts';
import { expireHolds, placeHold } from '../../src/holds/hold.service.ts';
import { createPet, newPetRecord } from '../../src/pets/pet.service.ts';
import { sharedTestApp } from '../helpers/app.ts';
import { ENGINES, feedSettled, openSharedStorages } from '../helpers/engines.ts';
import { assertError } from '../helpers/errors.ts';

type Auth = { authorization: string };
const HOUR_MS = 60 * 60 * 1000;
const ADDRESS = { line1: '1 Main Street', city: 'Springfield', postalCode: '12345', country: 'US' };
const later = (ms: number) => new Date(Date.now() + ms).toISOString();

async function created(app: FastifyInstance, auth: Auth, url: string, payload: object): Promise<{ id: number }> {
  const res = await app.inject({ method: 'POST', url, headers: auth, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function petStatus(app: FastifyInstance, auth: Auth, id: number): Promise<string> {
  return (await app.inject({ method: 'GET', url: `/v1/pets?id=${id}`, headers: auth })).json()[0].status;
}

for (const engine of ENGINES) {
  describe(`holds (${engine})`, () => {
    const appFor = sharedTestApp(engine);
    const setUp = async (app: FastifyInstance, auth: Auth) => ({
      pet: (await created(app, auth, '/v1/pets', { name: 'Bolt', categoryId: 1, price: { amount: 120000 } })).id,
      customer: (await created(app, auth, '/v1/customers', { name: 'Alex Doe', address: ADDRESS })).id,
    });

    test('a hold keeps an available animal pending for a customer; of 50 concurrent attempts exactly one is placed, the others get 409 pet_on_hold', async (t) => {
      const { app, auth } = await appFor(t);
      const { pet, customer } = await setUp(app, auth);
      const until = later(HOUR_MS);
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => app.inject({ method: 'POST', url: `/v1/pets/${pet}/holds`, headers: auth, payload: { customerId: customer, until } })),
      );
      const placed = answers.filter((r) => r.statusCode === 201);
      assert.equal(placed.length, 1, answers.map((r) => r.statusCode).join(','));
      for (const r of answers.filter((r) => r.statusCode !== 201)) assertError(r, 409, 'pet_on_hold');
      const hold = placed[0].json();
      assert.deepEqual(
        { ...hold, id: 0, createdAt: '', updatedAt: '' },
        { id: 0, petId: pet, customerId: customer, state: 'live', method: 'sale', until, createdAt: '', updatedAt: '' },
      );
      assert.equal(await petStatus(app, auth, pet), 'pending');
      const live = (await app.inject({ method: 'GET', url: `/v1/holds?state=live`, headers: auth })).json();
      assert.equal(live.length, 1);
    });

    test('refuses a hold for an unknown customer, a time not ahead or too far, an animal not available or not there', async (t) => {
      const { app, auth } = await appFor(t);
      const { pet, customer } = await setUp(app, auth);
      const hold = (payload: object, petId = pet) => app.inject({ method: 'POST', url: `/v1/pets/${petId}/holds`, headers: auth, payload });
      assertError(await hold({ customerId: 999_999, until: later(HOUR_MS) }), 400, 'unknown_customer');
      assertError(await hold({ customerId: customer, until: later(-1000) }), 400, 'validation_failed');
      assertError(await hold({ customerId: customer, until: later(91 * 24 * HOUR_MS) }), 400, 'validation_failed');
      assertError(await hold({ customerId: customer, until: later(HOUR_MS), deposit: { amount: 0 } }), 400, 'validation_failed');
      assertError(await hold({ customerId: customer, until: later(HOUR_MS) }, 999_999), 404, 'not_found');
      await created(app, auth, '/v1/store/orders', { petId: pet, customerId: customer });
      assertError(await hold({ customerId: customer, until: later(HOUR_MS) }), 409, 'pet_not_available');
    });

    test('while an animal is on hold its status stays and it cannot be withdrawn, nor its customer withdrawn or erased; cancelling frees it and records the refund', async (t) => {
      const { app, auth } = await appFor(t);
      const { pet, customer } = await setUp(app, auth);
      const hold = await created(app, auth, `/v1/pets/${pet}/holds`, { customerId: customer, until: later(HOUR_MS), deposit: { amount: 5000 } });
      const patch = await app.inject({
        method: 'PATCH',
        url: `/v1/pets/${pet}`,
        headers: { ...auth, 'content-type': 'application/merge-patch+json' },
        payload: JSON.stringify({ status: 'available' }),
      });
      assertError(patch, 409, 'pet_on_hold');
      assertError(await app.inject({ method: 'DELETE', url: `/v1/pets/${pet}`, headers: auth }), 409, 'pet_on_hold');
      assertError(await app.inject({ method: 'DELETE', url: `/v1/customers/${customer}`, headers: auth }), 409, 'customer_has_open_sale', /on hold/);
      assertError(await app.inject({ method: 'POST', url: `/v1/customers/${customer}/erase`, headers: auth }), 409, 'customer_has_open_sale');
      const exported = (await app.inject({ method: 'GET', url: `/v1/customers/${customer}/export`, headers: auth })).json();
      assert.deepEqual(
        exported.holds.map((h: { id: number }) => h.id),
        [hold.id],
      );
      const cancelled = await app.inject({ method: 'POST', url: `/v1/holds/${hold.id}/cancel`, headers: auth, payload: { depositRefunded: true } });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.equal(cancelled.json().state, 'cancelled');
      assert.equal(cancelled.json().depositRefunded, true);
      assert.deepEqual(cancelled.json().deposit, { amount: 5000, currency: 'EUR' });
      assert.equal(await petStatus(app, auth, pet), 'available');
      assertError(
        await app.inject({ method: 'POST', url: `/v1/holds/${hold.id}/cancel`, headers: auth, payload: { depositRefunded: true } }),
        409,
        'hold_not_live',
      );
      assertError(await app.inject({ method: 'POST', url: `/v1/holds/${hold.id}/convert`, headers: auth }), 409, 'hold_not_live');
      const plain = await created(app, auth, `/v1/pets/${pet}/holds`, { customerId: customer, until: later(HOUR_MS) });
      assertError(
        await app.inject({ method: 'POST', url: `/v1/holds/${plain.id}/cancel`, headers: auth, payload: { depositRefunded: true } }),
        400,
        'validation_failed',
      );
      assertError(await app.inject({ method: 'POST', url: '/v1/holds/999999/cancel', headers: auth, payload: { depositRefunded: false } }), 404, 'not_found');
    });

    test("converting places the customer's order for the animal, carrying the deposit and the method; the hold names the order", async (t) => {
      const { app, auth, storage } = await appFor(t);
      const { pet, customer } = await setUp(app, auth);
      const hold = await created(app, auth, `/v1/pets/${pet}/holds`, {
        customerId: customer,
        until: later(HOUR_MS),
        deposit: { amount: 5000 },
        method: 'adoption',
      });
      const res = await app.inject({ method: 'POST', url: `/v1/holds/${hold.id}/convert`, headers: auth });
      assert.equal(res.statusCode, 201, res.body);
      const order = res.json();
      assert.equal(res.headers.location, `/v1/store/orders/${order.id}`);
      assert.match(String(res.headers.etag), /^"[A-Za-z0-9_-]{22}"$/);
      assert.deepEqual(
        { petId: order.petId, customerId: order.customerId, status: order.status, method: order.method, price: order.price, deposit: order.deposit },
        {
          petId: pet,
          customerId: customer,
          status: 'placed',
          method: 'adoption',
          price: { amount: 120000, currency: 'EUR' },
          deposit: { amount: 5000, currency: 'EUR' },
        },
      );
      assert.equal(await petStatus(app, auth, pet), 'pending');
      const [ended] = (await app.inject({ method: 'GET', url: `/v1/holds?customerId=${customer}&state=converted`, headers: auth })).json();
      assert.equal(ended.orderId, order.id);
      await feedSettled(storage);
      const types = (await app.inject({ method: 'GET', url: '/v1/events', headers: auth })).json().map((e: { type: string }) => e.type);
      assert.deepEqual(
        types.filter((t: string) => t.startsWith('hold.') || t === 'order.placed'),
        ['hold.placed', 'hold.converted', 'order.placed'],
      );
      // The animal's history has its holds' events; no customer's event, whatever the ids.
      const history = (await app.inject({ method: 'GET', url: `/v1/events?petId=${pet}`, headers: auth })).json().map((e: { type: string }) => e.type);
      assert.deepEqual(
        history.filter((t: string) => t.startsWith('hold.') || t.startsWith('customer.')),
        ['hold.placed', 'hold.converted'],
      );
      const ofCustomerId = (await app.inject({ method: 'GET', url: `/v1/events?petId=${customer}`, headers: auth })).json();
      assert.ok(!ofCustomerId.some((e: { type: string }) => e.type.startsWith('customer.')), "a customer event is no animal's");
    });

    test('lists holds by customer and state, paged with a cursor that keeps the filters', async (t) => {
      const { app, auth } = await appFor(t);
      const { customer } = await setUp(app, auth);
      const other = (await created(app, auth, '/v1/customers', { name: 'Sam', address: ADDRESS })).id;
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) {
        const pet = (await created(app, auth, '/v1/pets', { name: `P${i}`, categoryId: 1 })).id;
        ids.push((await created(app, auth, `/v1/pets/${pet}/holds`, { customerId: customer, until: later(HOUR_MS) })).id);
      }
      const otherPet = (await created(app, auth, '/v1/pets', { name: 'Q', categoryId: 1 })).id;
      await created(app, auth, `/v1/pets/${otherPet}/holds`, { customerId: other, until: later(HOUR_MS) });
      const first = await app.inject({ method: 'GET', url: `/v1/holds?customerId=${customer}&state=live&limit=2`, headers: auth });
      assert.deepEqual(
        first.json().map((h: { id: number }) => h.id),
        ids.slice(0, 2),
      );
      const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1];
      assert.match(String(next), new RegExp(`^/v1/holds\\?customerId=${customer}&state=live&limit=2&cursor=`));
      const second = await app.inject({ method: 'GET', url: String(next), headers: auth });
      assert.deepEqual(
        second.json().map((h: { id: number }) => h.id),
        ids.slice(2),
      );
      assert.equal((await app.inject({ method: 'GET', url: '/v1/holds?state=expired', headers: auth })).json().length, 0);
      // One animal's live hold (the console's animal page): that hold alone, whoever it is for.
      const ofPet = await app.inject({ method: 'GET', url: `/v1/holds?petId=${otherPet}&state=live`, headers: auth });
      assert.deepEqual(
        ofPet.json().map((h: { petId: number; customerId: number }) => [h.petId, h.customerId]),
        [[otherPet, other]],
      );
      assert.equal((await app.inject({ method: 'GET', url: `/v1/holds?petId=${otherPet}&customerId=${customer}`, headers: auth })).json().length, 0);
      assertError(await app.inject({ method: 'GET', url: '/v1/holds?petId=0', headers: auth }), 400, 'validation_failed');
      assertError(await app.inject({ method: 'GET', url: '/v1/holds?state=gone', headers: auth }), 400, 'validation_failed');
    });

    test('a hold past its until expires by the job: the animal is available again and hold.expired is recorded once', async (t) => {
      const { app, auth, storage } = await appFor(t);
      const { pet, customer } = await setUp(app, auth);
      const until = later(HOUR_MS);
      const hold = await created(app, auth, `/v1/pets/${pet}/holds`, { customerId: customer, until });
      assert.equal(await expireHolds(storage, new Date(Date.parse(until) - 1)), 0, 'not before until');
      assert.equal(await expireHolds(storage, new Date(until)), 1);
      assert.equal(await expireHolds(storage, new Date(Date.parse(until) + HOUR_MS)), 0, 'once');
      assert.equal(await petStatus(app, auth, pet), 'available');
      const [ended] = (await app.inject({ method: 'GET', url: `/v1/holds?customerId=${customer}`, headers: auth })).json();
      assert.deepEqual([ended.id, ended.state], [hold.id, 'expired']);
      await feedSettled(storage);
      const expired = (await app.inject({ method: 'GET', url: '/v1/events?type=hold.expired', headers: auth })).json();
      assert.deepEqual(
        expired.map((e: { data: { id: number } }) => e.data.id),
        [hold.id],
      );
    });
  });

  describe(`hold expiry across instances (${engine})`, () => {
    test('two instances expiring at once on one database expire each hold exactly once', async (t) => {
      const [a, b] = await openSharedStorages(t, engine, 2);
      const now = new Date();
      const until = new Date(now.getTime() + HOUR_MS);
      const customer = await createCustomer(a, { name: 'Alex', address: { ...ADDRESS, country: 'US' } }, { now });
      const holds: number[] = [];
      for (let i = 0; i < 12; i++) {
        const pet = await createPet(a, newPetRecord({ name: `H${i}`, categoryId: 1 }, 'EUR'), { now });
        holds.push((await placeHold(i % 2 === 0 ? a : b, pet.id, { customerId: customer.id, until: until.toISOString() }, 'EUR', { now })).id);
      }
      const at = new Date(until.getTime() + 1);
      const [byA, byB] = await Promise.all([expireHolds(a, at), expireHolds(b, at)]);
      assert.equal(byA + byB, holds.length, `a expired ${byA}, b ${byB}`);
      await feedSettled(a);
      const events = await a.events.list({ limit: 100, afterId: 0, type: 'hold.expired' });
      assert.deepEqual(
        events.map((e) => (e.data as { id: number }).id).sort((x, y) => x - y),
        holds,
      );
      assert.deepEqual(await Promise.all([expireHolds(a, at), expireHolds(b, at)]), [0, 0]);
    });
  });
}
