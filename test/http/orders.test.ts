import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, fixedClock, sharedTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';

type Auth = { authorization: string };

async function newPet(app: FastifyInstance, auth: Auth, status = 'available'): Promise<number> {
  const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1, status } });
  assert.equal(res.statusCode, 201);
  return res.json().id;
}

async function place(app: FastifyInstance, auth: Auth, petId: number) {
  return app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId } });
}

async function move(app: FastifyInstance, auth: Auth, orderId: number, status: string) {
  return app.inject({ method: 'PATCH', url: `/v1/store/orders/${orderId}`, headers: auth, payload: { status } });
}

/** The pet's status as a client sees it: through the status-filtered listing, not getPet. */
async function petStatusSeen(app: FastifyInstance, auth: Auth, petId: number): Promise<string> {
  const found: string[] = [];
  for (const status of ['available', 'pending', 'sold']) {
    const res = await app.inject({ method: 'GET', url: `/v1/pets?status=${status}&limit=100`, headers: auth });
    if (res.json().some((p: { id: number }) => p.id === petId)) found.push(status);
  }
  assert.equal(found.length, 1, `pet ${petId} is listed under exactly one status: ${found}`);
  return found[0];
}

for (const engine of ENGINES) {
  describe(engine, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    describe('POST /v1/store/orders', () => {
      test('places an order: 201, Location, status placed, timestamps, and the pet becomes pending', async (t) => {
        const clock = fixedClock(new Date('2026-11-22T10:00:00.000Z'));
        const { app, auth } = await buildTestApp(t, { engine, clock });
        const petId = await newPet(app, auth);
        const res = await place(app, auth, petId);
        assert.equal(res.statusCode, 201);
        const order = res.json();
        assert.deepEqual(order, {
          id: order.id,
          petId,
          status: 'placed',
          method: 'sale',
          createdAt: '2026-11-22T10:00:00.000Z',
          updatedAt: '2026-11-22T10:00:00.000Z',
        });
        assert.equal(res.headers.location, `/v1/store/orders/${order.id}`);
        assert.equal(await petStatusSeen(app, auth, petId), 'pending');
      });

      test('an unknown pet → 400 unknown_pet', async (t) => {
        const { app, auth } = await testApp(t);
        const res = await place(app, auth, 4242);
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().code, 'unknown_pet');
      });

      for (const status of ['pending', 'sold']) {
        test(`a ${status} pet → 409 pet_not_available`, async (t) => {
          const { app, auth } = await testApp(t);
          const petId = await newPet(app, auth, status);
          const res = await place(app, auth, petId);
          assert.equal(res.statusCode, 409);
          assert.equal(res.json().code, 'pet_not_available');
          assert.equal(res.json().status, 409);
        });
      }

      const invalid: Array<[string, unknown]> = [
        ['missing petId', {}],
        ['petId as string', { petId: '1' }],
        ['petId zero', { petId: 0 }],
        ['petId fractional', { petId: 1.5 }],
        ['unknown field', { petId: 1, quantity: 2 }],
        ['status supplied by the client', { petId: 1, status: 'delivered' }],
        ['body an array', [1]],
      ];
      for (const [what, payload] of invalid) {
        test(`rejects ${what} with 400 validation_failed`, async (t) => {
          const { app, auth } = await testApp(t);
          await newPet(app, auth);
          const res = await app.inject({
            method: 'POST',
            url: '/v1/store/orders',
            headers: { ...auth, 'content-type': 'application/json' },
            payload: JSON.stringify(payload),
          });
          assert.equal(res.statusCode, 400, res.body);
          assert.equal(res.json().code, 'validation_failed');
        });
      }

      test('rejects a missing body (400), bad JSON (400 invalid_json) and other media types (415)', async (t) => {
        const { app, auth } = await testApp(t);
        assert.equal((await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth })).json().code, 'validation_failed');
        const bad = await app.inject({
          method: 'POST',
          url: '/v1/store/orders',
          headers: { ...auth, 'content-type': 'application/json' },
          payload: '{"petId":',
        });
        assert.equal(bad.json().code, 'invalid_json');
        const text = await app.inject({ method: 'POST', url: '/v1/store/orders', headers: { ...auth, 'content-type': 'text/plain' }, payload: 'petId=1' });
        assert.equal(text.statusCode, 415);
      });

      test('50 concurrent orders for one pet: exactly one 201, 49 × 409, pet pending', async (t) => {
        const { app, auth } = await testApp(t);
        const petId = await newPet(app, auth);
        const results = await Promise.all(Array.from({ length: 50 }, () => place(app, auth, petId)));
        const codes = results.map((r) => r.statusCode);
        assert.equal(codes.filter((c) => c === 201).length, 1);
        assert.equal(codes.filter((c) => c === 409).length, 49);
        assert.equal(await petStatusSeen(app, auth, petId), 'pending');
        const orders = await app.inject({ method: 'GET', url: `/v1/store/orders?petId=${petId}`, headers: auth });
        assert.equal(orders.json().length, 1);
      });
    });

    describe('PATCH /v1/store/orders/{orderId}: the lifecycle', () => {
      // [path of states, pet status after the last one]
      const legal: Array<[string[], string]> = [
        [['approved'], 'pending'],
        [['approved', 'delivered'], 'sold'],
        [['cancelled'], 'available'],
        [['approved', 'cancelled'], 'available'],
      ];
      for (const [path, petAfter] of legal) {
        test(`placed → ${path.join(' → ')} is allowed; the pet ends ${petAfter}`, async (t) => {
          const clock = fixedClock(new Date('2026-11-22T10:00:00.000Z'));
          const { app, auth } = await buildTestApp(t, { engine, clock });
          const petId = await newPet(app, auth);
          const order = (await place(app, auth, petId)).json();
          for (const [i, status] of path.entries()) {
            clock.set(new Date(Date.UTC(2026, 10, 22, 11 + i)));
            const res = await move(app, auth, order.id, status);
            assert.equal(res.statusCode, 200, res.body);
            assert.equal(res.json().status, status);
            assert.equal(res.json().createdAt, '2026-11-22T10:00:00.000Z');
            assert.equal(res.json().updatedAt, new Date(Date.UTC(2026, 10, 22, 11 + i)).toISOString());
            assert.equal(await petStatusSeen(app, auth, petId), status === 'delivered' ? 'sold' : status === 'cancelled' ? 'available' : 'pending');
          }
          assert.equal(await petStatusSeen(app, auth, petId), petAfter);
          const got = await app.inject({ method: 'GET', url: `/v1/store/orders/${order.id}`, headers: auth });
          assert.equal(got.json().status, path[path.length - 1]);
        });
      }

      // [states to reach first, illegal target]
      const illegal: Array<[string[], string]> = [
        [[], 'placed'],
        [[], 'delivered'],
        [['approved'], 'approved'],
        [['approved'], 'placed'],
        [['approved', 'delivered'], 'cancelled'],
        [['approved', 'delivered'], 'approved'],
        [['approved', 'delivered'], 'delivered'],
        [['cancelled'], 'approved'],
        [['cancelled'], 'placed'],
        [['cancelled'], 'delivered'],
        [['cancelled'], 'cancelled'],
      ];
      for (const [before, to] of illegal) {
        const from = before[before.length - 1] ?? 'placed';
        test(`${from} → ${to} is refused with 409 invalid_transition naming both; nothing changes`, async (t) => {
          const { app, auth } = await testApp(t);
          const petId = await newPet(app, auth);
          const order = (await place(app, auth, petId)).json();
          for (const s of before) assert.equal((await move(app, auth, order.id, s)).statusCode, 200);
          const petBefore = await petStatusSeen(app, auth, petId);
          const res = await move(app, auth, order.id, to);
          assert.equal(res.statusCode, 409);
          assert.equal(res.json().code, 'invalid_transition');
          assert.match(res.json().message, new RegExp(`from ${from} to ${to}`));
          assert.equal((await app.inject({ method: 'GET', url: `/v1/store/orders/${order.id}`, headers: auth })).json().status, from);
          assert.equal(await petStatusSeen(app, auth, petId), petBefore);
        });
      }

      test('a cancelled order frees the pet for a new order', async (t) => {
        const { app, auth } = await testApp(t);
        const petId = await newPet(app, auth);
        const first = (await place(app, auth, petId)).json();
        assert.equal((await place(app, auth, petId)).statusCode, 409);
        await move(app, auth, first.id, 'cancelled');
        assert.equal((await place(app, auth, petId)).statusCode, 201);
      });

      test('unknown order → 404; invalid ids and bodies → 400', async (t) => {
        const { app, auth } = await testApp(t);
        assert.equal((await move(app, auth, 999, 'approved')).statusCode, 404);
        assert.equal((await move(app, auth, 999, 'approved')).json().code, 'not_found');
        for (const id of ['abc', '0', '-2', '9007199254740992']) {
          const res = await app.inject({ method: 'PATCH', url: `/v1/store/orders/${id}`, headers: auth, payload: { status: 'approved' } });
          assert.equal(res.statusCode, 400, id);
        }
        const petId = await newPet(app, auth);
        const order = (await place(app, auth, petId)).json();
        for (const payload of [{}, { status: 'shipped' }, { status: 'approved', petId: 2 }, { status: 1 }]) {
          const res = await app.inject({ method: 'PATCH', url: `/v1/store/orders/${order.id}`, headers: auth, payload });
          assert.equal(res.statusCode, 400, JSON.stringify(payload));
          assert.equal(res.json().code, 'validation_failed');
        }
      });

      test('concurrent approve and cancel: one wins and the pet matches the final order state', async (t) => {
        const { app, auth } = await testApp(t);
        for (let round = 0; round < 5; round++) {
          const petId = await newPet(app, auth);
          const order = (await place(app, auth, petId)).json();
          const [a, c] = await Promise.all([move(app, auth, order.id, 'approved'), move(app, auth, order.id, 'cancelled')]);
          assert.ok([a.statusCode, c.statusCode].includes(200));
          const final = (await app.inject({ method: 'GET', url: `/v1/store/orders/${order.id}`, headers: auth })).json().status;
          // approve then cancel may both succeed (approved → cancelled is legal); cancel then approve may not.
          const expectedPet = final === 'cancelled' ? 'available' : 'pending';
          assert.equal(await petStatusSeen(app, auth, petId), expectedPet);
        }
      });
    });

    describe('GET /v1/store/orders/{orderId}', () => {
      test('200 with the order, 404 for an unknown id, 400 for a malformed id', async (t) => {
        const { app, auth } = await testApp(t);
        const order = (await place(app, auth, await newPet(app, auth))).json();
        const res = await app.inject({ method: 'GET', url: `/v1/store/orders/${order.id}`, headers: auth });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), order);
        assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders/777', headers: auth })).statusCode, 404);
        assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders/x', headers: auth })).statusCode, 400);
      });
    });

    describe('GET /v1/store/orders', () => {
      test('starts empty and answers a JSON array', async (t) => {
        const { app, auth } = await testApp(t);
        const res = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), []);
      });

      test('pages with Link rel="next", keeping status and petId filters, without gaps', async (t) => {
        const { app, auth } = await testApp(t);
        const orderIds: number[] = [];
        for (let i = 0; i < 30; i++) {
          const order = (await place(app, auth, await newPet(app, auth))).json();
          orderIds.push(order.id);
          if (i % 2 === 0) await move(app, auth, order.id, 'approved');
        }
        const approved = orderIds.filter((_, i) => i % 2 === 0);
        const seen: number[] = [];
        let url: string | undefined = '/v1/store/orders?status=approved&limit=4';
        while (url) {
          const res: Awaited<ReturnType<typeof app.inject>> = await app.inject({ method: 'GET', url, headers: auth });
          assert.equal(res.statusCode, 200, res.body);
          for (const o of res.json()) {
            assert.equal(o.status, 'approved');
            seen.push(o.id);
          }
          const link = res.headers.link as string | undefined;
          url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
          if (url) assert.match(url, /status=approved/);
        }
        assert.deepEqual(seen, approved);

        const all = await app.inject({ method: 'GET', url: '/v1/store/orders?limit=100', headers: auth });
        assert.deepEqual(
          all.json().map((o: { id: number }) => o.id),
          orderIds,
        );
        const one = all.json()[3];
        const byPet = await app.inject({ method: 'GET', url: `/v1/store/orders?petId=${one.petId}`, headers: auth });
        assert.deepEqual(byPet.json(), [one]);
        const first = await app.inject({ method: 'GET', url: `/v1/store/orders?petId=${one.petId}&limit=1&status=placed`, headers: auth });
        assert.equal(first.headers.link, undefined);
      });

      test('rejects invalid limit, status, petId, cursor and unknown parameters with 400', async (t) => {
        const { app, auth } = await testApp(t);
        for (const q of ['limit=0', 'limit=101', 'status=shipped', 'petId=abc', 'petId=0', 'cursor=zzz', 'sort=desc']) {
          const res = await app.inject({ method: 'GET', url: `/v1/store/orders?${q}`, headers: auth });
          assert.equal(res.statusCode, 400, q);
          assert.equal(res.json().code, q.startsWith('cursor') ? 'invalid_cursor' : 'validation_failed', q);
        }
      });
    });
  });
}

describe('orders persistence', () => {
  test("a restart on the same SQLite file keeps orders and the pets' statuses", async (t) => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { openSqlite } = await import('../../src/storage/sqlite/sqlite.storage.ts');
    const dir = mkdtempSync(join(tmpdir(), 'petstore-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const first = openSqlite({ path: join(dir, 'p.db') });
    const a = await buildTestApp(t, { storage: first });
    const petId = await newPet(a.app, a.auth);
    const order = (await place(a.app, a.auth, petId)).json();
    const approved = (await move(a.app, a.auth, order.id, 'approved')).json();
    await a.app.close();
    await first.close();

    const second = openSqlite({ path: join(dir, 'p.db') });
    t.after(() => second.close());
    const b = await buildTestApp(t, { storage: second });
    const res = await b.app.inject({ method: 'GET', url: `/v1/store/orders/${order.id}`, headers: b.auth });
    assert.deepEqual(res.json(), approved);
    assert.equal(await petStatusSeen(b.app, b.auth, petId), 'pending');
  });
});
