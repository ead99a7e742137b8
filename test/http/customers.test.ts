// Customers through the real app, on every engine: create, read, search, keyset paging, merge patch
// with If-Match, withdraw, the scopes and the read rule of their events, orders naming a customer,
// export and erasure with what a sale record keeps, and the retention job that ends it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { endSaleRetention } from '../../src/customers/customer.service.ts';
import { DEFAULT_SCOPES } from '../../src/keys/key.types.ts';
import { loggerOptions } from '../../src/logger.ts';
import { buildTestApp, keyWithScopes, logCapture, sharedTestApp } from '../helpers/app.ts';
import { ENGINES, feedSettled } from '../helpers/engines.ts';
import { assertError } from '../helpers/errors.ts';

type Auth = { authorization: string };

const ADDRESS = { line1: '221B Baker Street', line2: 'Flat 2', city: 'London', postalCode: 'NW1 6XE', region: 'Greater London', country: 'GB' };
const ALEX = { name: 'Alex Dœ-Müller', email: 'Alex.Doe@Example.com', phone: '+44 20 7946 0958', address: ADDRESS, notes: 'Calls in the afternoon' };
const DAY_MS = 24 * 60 * 60 * 1000;

async function newCustomer(app: FastifyInstance, auth: Auth, payload: object = ALEX): Promise<{ id: number; etag: string; body: Record<string, unknown> }> {
  const res = await app.inject({ method: 'POST', url: '/v1/customers', headers: auth, payload });
  assert.equal(res.statusCode, 201, res.body);
  return { id: res.json().id, etag: String(res.headers.etag), body: res.json() };
}

async function newPet(app: FastifyInstance, auth: Auth, name = 'Rex'): Promise<number> {
  const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name, categoryId: 1, price: { amount: 25000 } } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

function patch(app: FastifyInstance, auth: Auth, id: number, payload: object, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'PATCH',
    url: `/v1/customers/${id}`,
    headers: { ...auth, 'content-type': 'application/merge-patch+json', ...headers },
    payload: JSON.stringify(payload),
  });
}

async function order(app: FastifyInstance, auth: Auth, payload: object): Promise<{ id: number }> {
  const res = await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function moveOrder(app: FastifyInstance, auth: Auth, id: number, status: string): Promise<{ updatedAt: string }> {
  const res = await app.inject({ method: 'PATCH', url: `/v1/store/orders/${id}`, headers: auth, payload: { status } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const nextUrl = (link: unknown) => /<([^>]+)>; rel="next"/.exec(String(link ?? ''))?.[1];

for (const engine of ENGINES) {
  describe(`customers (${engine})`, () => {
    const appFor = sharedTestApp(engine);

    test('adds a customer with its address, answers 201 with Location and ETag, and reads it back with that ETag', async (t) => {
      const { app, auth } = await appFor(t);
      const res = await app.inject({ method: 'POST', url: '/v1/customers', headers: auth, payload: ALEX });
      assert.equal(res.statusCode, 201, res.body);
      const created = res.json();
      assert.equal(res.headers.location, `/v1/customers/${created.id}`);
      assert.deepEqual({ ...created, id: 0, createdAt: '', updatedAt: '' }, { id: 0, ...ALEX, createdAt: '', updatedAt: '' });
      const got = await app.inject({ method: 'GET', url: `/v1/customers/${created.id}`, headers: auth });
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.json(), created);
      assert.equal(got.headers.etag, res.headers.etag);
      const again = await app.inject({ method: 'GET', url: `/v1/customers/${created.id}`, headers: { ...auth, 'if-none-match': String(res.headers.etag) } });
      assert.equal(again.statusCode, 304);
      const minimal = await newCustomer(app, auth, { name: 'Sam', address: { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' } });
      assert.deepEqual(Object.keys(minimal.body), ['id', 'name', 'address', 'createdAt', 'updatedAt']);
    });

    test('refuses a country that is not an officially assigned ISO 3166-1 alpha-2 code, and other invalid members, with 400 naming the field', async (t) => {
      const { app, auth } = await appFor(t);
      for (const country of ['XK', 'ZZ', 'EU', 'gb', 'GBR', 'UK']) {
        const res = await app.inject({ method: 'POST', url: '/v1/customers', headers: auth, payload: { ...ALEX, address: { ...ADDRESS, country } } });
        assertError(res, 400, 'validation_failed');
        assert.equal(res.json().errors[0].field, 'address.country', country);
      }
      for (const country of ['AX', 'SS', 'BQ', 'DE', 'US']) await newCustomer(app, auth, { ...ALEX, address: { ...ADDRESS, country } });
      const cases: [object, string][] = [
        [{ ...ALEX, email: 'not-an-address' }, 'email'],
        [{ ...ALEX, phone: 'call me' }, 'phone'],
        [{ ...ALEX, name: '   ' }, 'name'],
        [{ name: 'No Address' }, 'address'],
        [{ ...ALEX, address: { ...ADDRESS, postalCode: undefined } }, 'address.postalCode'],
        [{ ...ALEX, age: 40 }, 'age'],
      ];
      for (const [payload, field] of cases) {
        const res = await app.inject({ method: 'POST', url: '/v1/customers', headers: auth, payload });
        assertError(res, 400, 'validation_failed');
        assert.equal(res.json().errors[0].field, field, JSON.stringify(payload));
      }
    });

    test('searches by a part of the name, e-mail or telephone (ignoring case and accents; a number however written) and pages with a cursor that keeps q', async (t) => {
      const { app, auth } = await appFor(t);
      const alex = await newCustomer(app, auth);
      const kim = await newCustomer(app, auth, { name: 'Kim 100%_Sure', email: 'kim@shop.test', phone: '(020) 7946-1111', address: ADDRESS });
      const ids = async (q: string) => {
        const res = await app.inject({ method: 'GET', url: `/v1/customers?q=${encodeURIComponent(q)}`, headers: auth });
        assert.equal(res.statusCode, 200, res.body);
        return (res.json() as { id: number }[]).map((c) => c.id);
      };
      assert.deepEqual(await ids('doe-muller'), [alex.id]);
      assert.deepEqual(await ids('ALEX.DOE@'), [alex.id]);
      assert.deepEqual(await ids('7946 0958'), [alex.id]);
      assert.deepEqual(await ids('+44-20-7946-0958'), [alex.id]);
      assert.deepEqual(await ids('7946'), [alex.id, kim.id]);
      assert.deepEqual(await ids('100%'), [kim.id], '% is taken literally');
      assert.deepEqual(await ids('0%_'), [kim.id]);
      assert.deepEqual(await ids('a%e'), [], 'not a wildcard');
      assert.deepEqual(await ids('nobody'), []);
      for (let i = 0; i < 3; i++) await newCustomer(app, auth, { ...ALEX, name: `Pat ${i}` });
      const seen: number[] = [];
      for (let url: string | undefined = '/v1/customers?q=pat&limit=2'; url !== undefined; ) {
        const res: { statusCode: number; body: string; headers: Record<string, unknown>; json(): unknown } = await app.inject({
          method: 'GET',
          url,
          headers: auth,
        });
        assert.equal(res.statusCode, 200, res.body);
        const page = res.json() as { id: number; name: string; etag: string }[];
        for (const c of page) assert.match(c.etag, /^"[A-Za-z0-9_-]{22}"$/);
        seen.push(...page.map((c) => c.id));
        url = nextUrl(res.headers.link);
        if (url !== undefined) assert.match(url, /^\/v1\/customers\?q=pat&limit=2&cursor=/);
      }
      assert.equal(seen.length, 3);
      assert.deepEqual(
        seen,
        [...seen].sort((a, b) => a - b),
      );
      const foreign = await app.inject({ method: 'GET', url: '/v1/customers?q=kim&cursor=abc.def', headers: auth });
      assertError(foreign, 400, 'invalid_cursor');
    });

    test('merge-patches under If-Match: a stale tag is 412 and changes nothing; null removes; the address merges member by member; an unchanged patch records nothing', async (t) => {
      const { app, auth, storage } = await appFor(t);
      const { id, etag } = await newCustomer(app, auth);
      const changed = await patch(app, auth, id, { phone: null, address: { line2: null, city: 'Leeds' } }, { 'if-match': etag });
      assert.equal(changed.statusCode, 200, changed.body);
      const body = changed.json();
      assert.equal(body.phone, undefined);
      assert.deepEqual(body.address, { line1: ADDRESS.line1, city: 'Leeds', postalCode: ADDRESS.postalCode, region: ADDRESS.region, country: 'GB' });
      assert.notEqual(changed.headers.etag, etag);
      const stale = await patch(app, auth, id, { name: 'Someone Else' }, { 'if-match': etag });
      assertError(stale, 412, 'precondition_failed');
      assert.equal((await app.inject({ method: 'GET', url: `/v1/customers/${id}`, headers: auth })).json().name, ALEX.name);
      const same = await patch(app, auth, id, { name: ALEX.name, address: { city: 'Leeds' } });
      assert.equal(same.statusCode, 200);
      assert.equal(same.headers.etag, changed.headers.etag);
      assertError(await patch(app, auth, id, {}), 400, 'validation_failed');
      assertError(await patch(app, auth, id, { address: { country: 'XX' } }), 400, 'validation_failed');
      assertError(await patch(app, auth, id, { name: null }), 400, 'validation_failed');
      assertError(await patch(app, auth, 999_999, { name: 'X' }), 404, 'not_found');
      await feedSettled(storage);
      const events = (await app.inject({ method: 'GET', url: '/v1/events', headers: auth })).json() as { type: string; data: unknown }[];
      const mine = events.filter((e) => e.type.startsWith('customer.'));
      assert.deepEqual(
        mine.map((e) => [e.type, e.data]),
        [
          ['customer.created', { id }],
          ['customer.updated', { id }],
        ],
        'one update recorded, and events carry the id only',
      );
    });

    test('withdraws a customer (404 and unlisted after), but not while an order of theirs is open', async (t) => {
      const { app, auth } = await appFor(t);
      const { id, etag } = await newCustomer(app, auth);
      const placed = await order(app, auth, { petId: await newPet(app, auth), customerId: id });
      assertError(
        await app.inject({ method: 'DELETE', url: `/v1/customers/${id}`, headers: auth }),
        409,
        'customer_has_open_sale',
        new RegExp(`order ${placed.id}`),
      );
      await moveOrder(app, auth, placed.id, 'cancelled');
      assertError(await app.inject({ method: 'DELETE', url: `/v1/customers/${id}`, headers: { ...auth, 'if-match': '"stale"' } }), 412, 'precondition_failed');
      const gone = await app.inject({ method: 'DELETE', url: `/v1/customers/${id}`, headers: { ...auth, 'if-match': etag } });
      assert.equal(gone.statusCode, 204, gone.body);
      assertError(await app.inject({ method: 'GET', url: `/v1/customers/${id}`, headers: auth }), 404, 'not_found');
      assert.deepEqual((await app.inject({ method: 'GET', url: '/v1/customers', headers: auth })).json(), []);
      assertError(await app.inject({ method: 'DELETE', url: `/v1/customers/${id}`, headers: auth }), 404, 'not_found');
      const refused = await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: await newPet(app, auth), customerId: id } });
      assertError(refused, 400, 'unknown_customer');
    });

    test('an order names its customer and method; one without a customer is placed with Deprecation and Sunset headers', async (t) => {
      const { app, auth } = await appFor(t);
      const { id } = await newCustomer(app, auth);
      const res = await app.inject({
        method: 'POST',
        url: '/v1/store/orders',
        headers: auth,
        payload: { petId: await newPet(app, auth), customerId: id, method: 'adoption' },
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().customerId, id);
      assert.equal(res.json().method, 'adoption');
      assert.equal(res.headers.deprecation, undefined);
      const old = await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: await newPet(app, auth) } });
      assert.equal(old.statusCode, 201, old.body);
      assert.equal(old.json().customerId, undefined);
      assert.equal(old.json().method, 'sale');
      assert.match(String(old.headers.deprecation), /^@\d+$/);
      assert.equal(old.headers.sunset, 'Tue, 01 Jun 2027 00:00:00 GMT');
      assert.match(String(old.headers.link), /rel="deprecation"/);
      assertError(
        await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: await newPet(app, auth), customerId: 999_999 } }),
        400,
        'unknown_customer',
      );
      assertError(
        await app.inject({
          method: 'POST',
          url: '/v1/store/orders',
          headers: auth,
          payload: { petId: await newPet(app, auth), customerId: id, method: 'gift' },
        }),
        400,
        'validation_failed',
      );
    });

    test('customers take customers:read and customers:write, which the default set of a new key leaves out; their events follow the read rule', async (t) => {
      const { app, auth, storage } = await appFor(t);
      const { id } = await newCustomer(app, auth);
      const plain = await keyWithScopes(storage, DEFAULT_SCOPES);
      assertError(await app.inject({ method: 'GET', url: '/v1/customers', headers: plain }), 403, 'insufficient_scope');
      assertError(await app.inject({ method: 'GET', url: `/v1/customers/${id}/export`, headers: plain }), 403, 'insufficient_scope');
      assertError(await app.inject({ method: 'POST', url: '/v1/customers', headers: plain, payload: ALEX }), 403, 'insufficient_scope');
      const reader = await keyWithScopes(storage, ['customers:read', 'events:read']);
      assert.equal((await app.inject({ method: 'GET', url: `/v1/customers/${id}`, headers: reader })).statusCode, 200);
      assertError(await app.inject({ method: 'POST', url: `/v1/customers/${id}/erase`, headers: reader }), 403, 'insufficient_scope');
      await feedSettled(storage);
      const feed = async (headers: Auth, query = '') => (await app.inject({ method: 'GET', url: `/v1/events${query}`, headers })).json() as { type: string }[];
      assert.ok((await feed(reader)).some((e) => e.type === 'customer.created'));
      assert.ok(!(await feed(plain)).some((e) => e.type.startsWith('customer.')), 'left out for a key without customers:read');
      assertError(await app.inject({ method: 'GET', url: '/v1/events?type=customer.created', headers: plain }), 403, 'insufficient_scope');
    });

    test('exports everything held on a customer, and erases it all when they bought nothing', async (t) => {
      const { app, auth } = await appFor(t);
      const { id } = await newCustomer(app, auth);
      const cancelled = await order(app, auth, { petId: await newPet(app, auth), customerId: id });
      await moveOrder(app, auth, cancelled.id, 'cancelled');
      const exported = await app.inject({ method: 'GET', url: `/v1/customers/${id}/export`, headers: auth });
      assert.equal(exported.statusCode, 200, exported.body);
      const data = exported.json();
      assert.deepEqual({ ...data.customer, createdAt: '', updatedAt: '' }, { id, ...ALEX, createdAt: '', updatedAt: '' });
      assert.deepEqual(
        data.orders.map((o: { id: number; status: string }) => [o.id, o.status]),
        [[cancelled.id, 'cancelled']],
      );
      const erased = await app.inject({ method: 'POST', url: `/v1/customers/${id}/erase`, headers: auth });
      assert.equal(erased.statusCode, 200, erased.body);
      assert.deepEqual(erased.json().kept, []);
      assert.equal(erased.json().keptUntil, undefined);
      const after = (await app.inject({ method: 'GET', url: `/v1/customers/${id}/export`, headers: auth })).json();
      assert.deepEqual(Object.keys(after.customer).sort(), ['createdAt', 'erasedAt', 'id', 'updatedAt', 'withdrawnAt']);
      assertError(await app.inject({ method: 'GET', url: `/v1/customers/${id}`, headers: auth }), 404, 'not_found');
      assertError(await app.inject({ method: 'GET', url: '/v1/customers/999999/export', headers: auth }), 404, 'not_found');
      assertError(await app.inject({ method: 'POST', url: '/v1/customers/999999/erase', headers: auth }), 404, 'not_found');
    });

    test('erasure keeps only the name and address a sale record needs, says until when, and the retention job erases them then', async (t) => {
      const { app, auth, storage } = await appFor(t);
      const { id } = await newCustomer(app, auth);
      const open = await order(app, auth, { petId: await newPet(app, auth), customerId: id });
      assertError(await app.inject({ method: 'POST', url: `/v1/customers/${id}/erase`, headers: auth }), 409, 'customer_has_open_sale');
      await moveOrder(app, auth, open.id, 'approved');
      const delivered = await moveOrder(app, auth, open.id, 'delivered');
      const res = await app.inject({ method: 'POST', url: `/v1/customers/${id}/erase`, headers: auth });
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json();
      const until = new Date(Date.parse(delivered.updatedAt) + 730 * DAY_MS).toISOString();
      assert.deepEqual(answer.kept, ['name', 'address']);
      assert.equal(answer.keptUntil, until);
      assert.match(answer.reason, new RegExp(`order ${open.id}`));
      const held = (await app.inject({ method: 'GET', url: `/v1/customers/${id}/export`, headers: auth })).json().customer;
      assert.deepEqual(
        { name: held.name, address: held.address, email: held.email, phone: held.phone, notes: held.notes, retainedUntil: held.retainedUntil },
        { name: ALEX.name, address: ADDRESS, email: undefined, phone: undefined, notes: undefined, retainedUntil: until },
      );
      const again = await app.inject({ method: 'POST', url: `/v1/customers/${id}/erase`, headers: auth });
      assert.deepEqual({ ...(again.json() as object), erasedAt: '' }, { ...answer, erasedAt: '' }, 'erasing again answers the same');
      assert.equal(await endSaleRetention(storage, new Date(Date.parse(until) - 1)), 0, 'kept until the period ends');
      assert.equal(await endSaleRetention(storage, new Date(until)), 1);
      const ended = (await app.inject({ method: 'GET', url: `/v1/customers/${id}/export`, headers: auth })).json();
      assert.deepEqual(Object.keys(ended.customer).sort(), ['createdAt', 'erasedAt', 'id', 'updatedAt', 'withdrawnAt']);
      assert.equal(ended.orders[0].customerId, id, 'the sale record keeps naming the customer by id');
      const later = await app.inject({ method: 'POST', url: `/v1/customers/${id}/erase`, headers: auth });
      assert.deepEqual(later.json().kept, [], 'nothing is kept once the period ended');
    });
  });
}

describe('customers and the logs', () => {
  test('no name, e-mail, telephone, address or note of a customer reaches the log, whatever the request or its answer', async (t) => {
    const logs = logCapture();
    const { app, auth } = await buildTestApp(t, { logger: { ...(loggerOptions(loadConfig({})) as object), level: 'trace', stream: logs.stream } });
    const { id, etag } = await newCustomer(app, auth);
    await patch(app, auth, id, { email: 'zed.quux@example.org', address: { line1: '99 Xylophone Road' } }, { 'if-match': etag });
    await patch(app, auth, id, { name: 'Quentin Zabriskie' }, { 'if-match': '"stale"' });
    await app.inject({ method: 'POST', url: '/v1/customers', headers: auth, payload: { ...ALEX, email: 'broken@@example.com', name: 'Yolanda Vexley' } });
    await app.inject({ method: 'GET', url: `/v1/customers?q=${encodeURIComponent('Vexley')}`, headers: auth });
    await app.inject({ method: 'GET', url: `/v1/customers/${id}/export`, headers: auth });
    await app.inject({ method: 'POST', url: `/v1/customers/${id}/erase`, headers: auth });
    await app.inject({ method: 'GET', url: `/v1/nowhere?name=${encodeURIComponent(ALEX.name)}`, headers: auth });
    const text = logs.text();
    assert.ok(logs.lines().filter((l) => l.msg === 'request').length >= 8, 'the requests were logged');
    for (const secret of [
      'Alex',
      'Müller',
      'Example.com',
      'example.org',
      'zed.quux',
      '7946',
      'Baker',
      'NW1',
      'Xylophone',
      'afternoon',
      'Quentin',
      'Yolanda',
      'Vexley',
      'broken@@',
    ]) {
      assert.ok(!text.toLowerCase().includes(secret.toLowerCase()), `"${secret}" is in the log`);
    }
  });
});
