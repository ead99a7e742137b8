import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, sharedTestApp } from '../helpers/app.ts';

type Auth = { authorization: string };

async function pet(app: FastifyInstance, auth: Auth): Promise<number> {
  const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

async function order(app: FastifyInstance, auth: Auth, petId: number): Promise<number> {
  const res = await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

function assertRefused(
  res: { statusCode: number; json(): { code?: string; status?: number; message?: string }; body: string },
  parameter: string,
  what: string,
): void {
  assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
  const body = res.json();
  assert.equal(body.code, 'validation_failed', what);
  assert.equal(body.status, 400, what);
  assert.match(body.message ?? '', new RegExp(`"${parameter}"`), `${what}: the message names ${parameter}`);
}

// Every spelling of a number that is not decimal digits without sign or leading zeros.
const NOT_INTEGERS = ['0x3', '0X3', '0o7', '0b1', '+3', '-3', '03', '3.0', '3e0', '1e3', ' 3', '3 ', 'Infinity', '-Infinity', 'NaN', '', 'true', '３'];

describe('integer path and query parameters are written as integers (no coercion)', () => {
  // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
  const testApp = sharedTestApp();
  test('the cases the fuzzer found: Infinity and a 400-digit limit are 400, never 500', async (t) => {
    const { app, auth } = await testApp(t);
    assertRefused(await app.inject({ method: 'GET', url: '/v1/pets?limit=Infinity', headers: auth }), 'limit', 'limit=Infinity');
    const huge = await app.inject({ method: 'GET', url: `/v1/store/orders?limit=${'9'.repeat(400)}`, headers: auth });
    assertRefused(huge, 'limit', 'limit of 400 digits');
    assert.match(huge.json().message, /<= 100/);
    assertRefused(await app.inject({ method: 'GET', url: `/v1/store/orders?petId=${'1'.repeat(400)}`, headers: auth }), 'petId', 'petId of 400 digits');
  });

  test('an identifier in another spelling never names a resource: GET /v1/pets/0x3 is not pet 3', async (t) => {
    const { app, auth } = await testApp(t);
    const id = await pet(app, auth);
    assert.equal(id, 1);
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets/1', headers: auth })).statusCode, 200);
    for (const text of NOT_INTEGERS.filter((s) => s !== '')) {
      assertRefused(
        await app.inject({ method: 'GET', url: `/v1/pets/${encodeURIComponent(text.replace('3', '1'))}`, headers: auth }),
        'petId',
        `petId ${text}`,
      );
    }
  });

  test('PATCH /v1/store/orders/0x1 does not cancel order 1', async (t) => {
    const { app, auth } = await testApp(t);
    const id = await order(app, auth, await pet(app, auth));
    for (const text of ['0x1', '01', '+1', '1e0', 'Infinity']) {
      const res = await app.inject({ method: 'PATCH', url: `/v1/store/orders/${encodeURIComponent(text)}`, headers: auth, payload: { status: 'cancelled' } });
      assertRefused(res, 'orderId', `orderId ${text}`);
    }
    const after = await app.inject({ method: 'GET', url: `/v1/store/orders/${id}`, headers: auth });
    assert.equal(after.json().status, 'placed', 'the order is untouched');
    assertRefused(await app.inject({ method: 'GET', url: '/v1/store/orders/0x1', headers: auth }), 'orderId', 'getOrder 0x1');
  });

  test('limit and petId in query strings: every other spelling is refused, decimal digits are read', async (t) => {
    const { app, auth } = await testApp(t);
    for (const text of NOT_INTEGERS) {
      assertRefused(await app.inject({ method: 'GET', url: `/v1/pets?limit=${encodeURIComponent(text)}`, headers: auth }), 'limit', `limit=${text}`);
      assertRefused(
        await app.inject({ method: 'GET', url: `/v1/store/orders?limit=${encodeURIComponent(text)}`, headers: auth }),
        'limit',
        `orders limit=${text}`,
      );
      assertRefused(
        await app.inject({ method: 'GET', url: `/v1/store/orders?petId=${encodeURIComponent(text)}`, headers: auth }),
        'petId',
        `orders petId=${text}`,
      );
    }
    for (const url of ['/v1/pets?limit=7', '/v1/pets?limit=100', '/v1/store/orders?limit=1&petId=9007199254740991']) {
      assert.equal((await app.inject({ method: 'GET', url, headers: auth })).statusCode, 200, url);
    }
    assertRefused(await app.inject({ method: 'GET', url: '/v1/pets?limit=0', headers: auth }), 'limit', 'limit=0');
    assertRefused(await app.inject({ method: 'GET', url: '/v1/store/orders?petId=9007199254740992', headers: auth }), 'petId', 'petId 2^53');
  });

  test('request bodies are not coerced either: "1" is not an integer', async (t) => {
    const { app, auth } = await testApp(t);
    const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: '1' } });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'validation_failed');
  });
});

describe('query parameters', () => {
  test('a repeated query parameter is refused naming it', async (t) => {
    const { app, auth } = await buildTestApp(t);
    for (const url of ['/v1/pets?limit=1&limit=1', '/v1/pets?status=sold&status=sold', '/v1/store/orders?petId=1&petId=2']) {
      const res = await app.inject({ method: 'GET', url, headers: auth });
      assert.equal(res.statusCode, 400, url);
      assert.match(res.json().message, /^query parameter "(limit|status|petId)" must be given once$/, url);
    }
  });
});
