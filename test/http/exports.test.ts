// The CSV exports (issue 39 §2) through the real app, on every engine, with pages of two rows so
// that every export here spans several: the rows are the JSON listing's with the same filters and
// sort, parsed back by a CSV library; a pet's row read back as a merge patch changes nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import { decodePetRow, PET_CSV_HEADERS, petPatchOf } from '../../src/pets/pet.csv.ts';
import { keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';
import { assertError } from '../helpers/errors.ts';

type Auth = { authorization: string };

async function post(app: FastifyInstance, auth: Auth, url: string, payload: object): Promise<Record<string, unknown> & { id: number }> {
  const res = await app.inject({ method: 'POST', url, headers: auth, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function csv(app: FastifyInstance, auth: Auth, url: string, name: string): Promise<{ header: string[]; rows: Record<string, string>[] }> {
  const res = await app.inject({ method: 'GET', url, headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8; header=present');
  assert.equal(res.headers['content-disposition'], `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`);
  const [header]: string[][] = parse(res.body, { to_line: 1 });
  return { header, rows: parse(res.body, { columns: true }) };
}

const FULL = {
  name: '=HYPERLINK("http://evil")',
  categoryId: 1,
  status: 'available',
  description: 'Calm, "gentle"\r\nand house-trained',
  tags: ['friendly', 'house-trained'],
  price: { amount: 120050, currency: 'EUR' },
  // Keys in another order than the schema's: the row read back names the same breed and source.
  breed: { secondary: 'Poodle', mixed: true, primary: 'Labrador Retriever' },
  sex: 'male',
  neutered: false,
  colour: '@black',
  birthDate: '2025-01-01',
  birthDateEstimated: true,
  microchip: '985112345678903',
  acquiredAt: '2025-03-01',
  source: { licence: '-MD-BR-2041', name: 'Green Acres, Kennels', kind: 'breeder', address: '12 Farm Road' },
};

for (const engine of ENGINES) {
  describe(`CSV exports (${engine})`, () => {
    const appFor = sharedTestApp(engine, { exportPageSize: 2 });

    test('GET /pets.csv writes what the listing shows, its filters and sort, every page, formulas defused; a row read back as a patch changes nothing', async (t) => {
      const { app, auth } = await appFor(t);
      const full = await post(app, auth, '/v1/pets', FULL);
      for (const name of ['Bella', 'Ace', 'Dot', 'Cody']) await post(app, auth, '/v1/pets', { name, categoryId: 1 });
      await post(app, auth, '/v1/pets', { name: 'Sold one', categoryId: 1, status: 'sold' });
      const query = 'status=available&sort=-name';
      const listed = (await app.inject({ method: 'GET', url: `/v1/pets?${query}&limit=100`, headers: auth })).json() as { id: number; name: string }[];
      assert.equal(listed.length, 5);
      const { header, rows } = await csv(app, auth, `/v1/pets.csv?${query}`, 'pets');
      assert.deepEqual(header, PET_CSV_HEADERS);
      assert.deepEqual(
        rows.map((r) => Number(r.id)),
        listed.map((p) => p.id),
        'the rows of three pages of two, in the listing order',
      );
      const row = rows.find((r) => Number(r.id) === full.id)!;
      assert.equal(row.name, `'${FULL.name}`);
      assert.equal(row.colour, "'@black");
      assert.equal(row['source.licence'], "'-MD-BR-2041");
      assert.equal(row.category, 'Dogs');
      assert.equal(row.tags, 'friendly house-trained');
      assert.equal(row['price.amount'], '120050');
      const { id, category, members } = decodePetRow(row);
      assert.equal(id, full.id);
      assert.equal(category, 'Dogs');
      assert.deepEqual({ ...members }, Object.fromEntries(Object.entries(FULL).filter(([m]) => m !== 'categoryId')));
      const patched = await app.inject({
        method: 'PATCH',
        url: `/v1/pets/${full.id}`,
        headers: { ...auth, 'content-type': 'application/merge-patch+json' },
        payload: petPatchOf(decodePetRow(row), 1),
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json().updatedAt, full.updatedAt, 'the exported row, imported as a patch, changes nothing');
    });

    test('GET /pets.csv of an empty listing is its header; a query the listing refuses is refused before anything is sent', async (t) => {
      const { app, auth } = await appFor(t);
      const { rows } = await csv(app, auth, '/v1/pets.csv?status=pending', 'pets');
      assert.deepEqual(rows, []);
      assertError(await app.inject({ method: 'GET', url: '/v1/pets.csv?limit=10', headers: auth }), 400, 'validation_failed', /limit/);
      assertError(await app.inject({ method: 'GET', url: '/v1/pets.csv?cursor=abc', headers: auth }), 400, 'validation_failed');
      assertError(await app.inject({ method: 'GET', url: '/v1/pets.csv?breed=--', headers: auth }), 400, 'validation_failed', /breed/);
      assertError(await app.inject({ method: 'GET', url: '/v1/pets.csv?id=1&sort=name', headers: auth }), 400, 'validation_failed', /sort/);
    });

    test('GET /store/orders.csv writes the orders the listing shows with the same filters; GET /customers.csv the customers, a telephone number defused', async (t) => {
      const { app, auth, storage } = await appFor(t);
      const buyer = await post(app, auth, '/v1/customers', {
        name: 'Ann "Nan" Lee, Jr.',
        phone: '+1 518 555 0100',
        address: { line1: '1 Main St', city: 'Albany', postalCode: '12207', region: 'NY', country: 'US' },
      });
      await post(app, auth, '/v1/customers', { name: 'Bob', address: { line1: '2 Main St', city: 'Albany', postalCode: '12207', country: 'US' } });
      const orders = [];
      for (let i = 0; i < 5; i++) {
        const pet = await post(app, auth, '/v1/pets', { name: `Pup ${i}`, categoryId: 1, price: { amount: 1000 + i } });
        orders.push(await post(app, auth, '/v1/store/orders', { petId: pet.id, customerId: buyer.id }));
      }
      const cancelled = await app.inject({ method: 'PATCH', url: `/v1/store/orders/${orders[1].id}`, headers: auth, payload: { status: 'cancelled' } });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      const { header, rows } = await csv(app, auth, '/v1/store/orders.csv?status=placed', 'orders');
      assert.deepEqual(header, [
        'id',
        'petId',
        'customerId',
        'status',
        'method',
        'createdAt',
        'updatedAt',
        'price.amount',
        'price.currency',
        'deposit.amount',
        'deposit.currency',
      ]);
      const listed = (await app.inject({ method: 'GET', url: '/v1/store/orders?status=placed&limit=100', headers: auth })).json() as Record<string, unknown>[];
      assert.equal(listed.length, 4);
      assert.deepEqual(
        rows,
        listed.map((o) => {
          const price = o.price as { amount: number; currency: string };
          return {
            id: String(o.id),
            petId: String(o.petId),
            customerId: String(buyer.id),
            status: 'placed',
            method: String(o.method),
            createdAt: String(o.createdAt),
            updatedAt: String(o.updatedAt),
            'price.amount': String(price.amount),
            'price.currency': price.currency,
            'deposit.amount': '',
            'deposit.currency': '',
          };
        }),
      );
      const customers = await csv(app, auth, '/v1/customers.csv?q=lee', 'customers');
      assert.deepEqual(customers.header, [
        'id',
        'name',
        'email',
        'phone',
        'address.line1',
        'address.line2',
        'address.city',
        'address.postalCode',
        'address.region',
        'address.country',
        'notes',
        'createdAt',
        'updatedAt',
      ]);
      assert.equal(customers.rows.length, 1);
      assert.equal(customers.rows[0].name, 'Ann "Nan" Lee, Jr.');
      assert.equal(customers.rows[0].phone, "'+1 518 555 0100");
      assert.equal((await csv(app, auth, '/v1/customers.csv', 'customers')).rows.length, 2);
      // The JSON lists' scopes, no more: orders:read reads no animal and no customer.
      const orderReader = await keyWithScopes(storage, ['orders:read']);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders.csv', headers: orderReader })).statusCode, 200);
      assertError(await app.inject({ method: 'GET', url: '/v1/pets.csv', headers: orderReader }), 403, 'insufficient_scope');
      assertError(await app.inject({ method: 'GET', url: '/v1/customers.csv', headers: orderReader }), 403, 'insufficient_scope');
      assertError(
        await app.inject({ method: 'GET', url: '/v1/store/orders.csv', headers: await keyWithScopes(storage, ['pets:read']) }),
        403,
        'insufficient_scope',
      );
    });
  });
}
