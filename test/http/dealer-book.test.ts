// The dealer's record book (issue 37 §3) through the real app, on every engine: the CSV parsed back
// by a CSV library (csv-parse), hostile text kept exactly, formulas defused, the period honoured,
// pages of the walk joined without a gap or a repeat.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import { DEALER_BOOK_HEADER, dealerBook } from '../../src/records/dealer-book.ts';
import { keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';
import { assertError } from '../helpers/errors.ts';

type Auth = { authorization: string };
const HOSTILE = 'Rex, "the" dog\r\nline two; é ✓';

async function post(app: FastifyInstance, auth: Auth, url: string, payload: object): Promise<{ id: number }> {
  const res = await app.inject({ method: 'POST', url, headers: auth, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

/** The whole text a generator of chunks yields. */
async function text(chunks: AsyncIterable<string>): Promise<string> {
  let all = '';
  for await (const chunk of chunks) all += chunk;
  return all;
}

const today = () => new Date().toISOString().slice(0, 10);

for (const engine of ENGINES) {
  describe(`dealer book (${engine})`, () => {
    const appFor = sharedTestApp(engine);

    test('is RFC 4180 CSV a CSV library reads back: a header, one row per animal acquired or sold in the period, text kept exactly, formulas defused', async (t) => {
      const { app, auth } = await appFor(t);
      const sold = await post(app, auth, '/v1/pets', {
        name: HOSTILE,
        categoryId: 1,
        price: { amount: 120050 },
        breed: { primary: 'Labrador Retriever', mixed: true, secondary: 'Poodle' },
        sex: 'male',
        birthDate: '2025-01-01',
        acquiredAt: '2025-03-01',
        source: { kind: 'breeder', name: 'Green Acres, "GA"', address: '12 Farm Road, Albany', licence: 'MD-BR-2041' },
      });
      const kept = await post(app, auth, '/v1/pets', { name: '=HYPERLINK("http://x")', categoryId: 1 });
      const buyer = await post(app, auth, '/v1/customers', {
        name: 'Ann "Nan" Lee, Jr.',
        address: { line1: '1 Main St', city: 'Albany', postalCode: '12207', region: 'NY', country: 'US' },
      });
      const order = await post(app, auth, '/v1/store/orders', { petId: sold.id, customerId: buyer.id, method: 'adoption' });
      for (const status of ['approved', 'delivered'])
        assert.equal((await app.inject({ method: 'PATCH', url: `/v1/store/orders/${order.id}`, headers: auth, payload: { status } })).statusCode, 200);
      const res = await app.inject({ method: 'GET', url: `/v1/records/dealer-book?from=${today()}&to=${today()}`, headers: auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8; header=present');
      assert.match(String(res.headers['content-disposition']), /^attachment; filename="dealer-book-/);
      assert.ok(res.body.endsWith('\r\n') && !/[^\r]\n/.test(res.body.replaceAll('line two', '')), 'CRLF line ends');
      const rows: Record<string, string>[] = parse(res.body, { columns: true, bom: false, relax_quotes: false });
      assert.deepEqual(Object.keys(rows[0]), [...DEALER_BOOK_HEADER]);
      const byId = new Map(rows.map((r) => [Number(r.animal_id), r]));
      assert.ok(byId.has(1), 'the animals of a fresh store are in the period too');
      const sale = byId.get(sold.id)!;
      assert.equal(sale.name, HOSTILE);
      assert.deepEqual(
        [sale.method, sale.buyer_name, sale.buyer_address, sale.price, sale.currency, sale.order_id],
        ['adoption', 'Ann "Nan" Lee, Jr.', '1 Main St, 12207, Albany, NY, US', '1200.50', 'EUR', String(order.id)],
      );
      assert.match(sale.disposed_at, /^\d{4}-\d\d-\d\dT/);
      assert.deepEqual(
        [sale.breed, sale.sex, sale.birth_date, sale.acquired_at, sale.acquired_from, sale.acquired_from_address],
        ['Labrador Retriever × Poodle (mixed)', 'male', '2025-01-01', '2025-03-01', 'breeder: Green Acres, "GA", licence MD-BR-2041', '12 Farm Road, Albany'],
      );
      assert.equal(byId.get(kept.id)!.name, `'=HYPERLINK("http://x")`, 'a formula starts with a quote mark');
      assert.equal(byId.get(kept.id)!.buyer_name, '');
      const before = await app.inject({ method: 'GET', url: '/v1/records/dealer-book?from=2020-01-01&to=2020-12-31', headers: auth });
      assert.deepEqual(parse(before.body, { columns: true }), [], 'nothing acquired or sold then');
      assert.equal(before.body, `${DEALER_BOOK_HEADER.join(',')}\r\n`);
    });

    test('an animal is in the book of the day its record says it was acquired, not the day it was added', async (t) => {
      const { app, auth } = await appFor(t);
      const late = await post(app, auth, '/v1/pets', { name: 'Late entry', categoryId: 1, acquiredAt: '2024-06-15' });
      const ids = async (from: string, to: string) => {
        const res = await app.inject({ method: 'GET', url: `/v1/records/dealer-book?from=${from}&to=${to}`, headers: auth });
        assert.equal(res.statusCode, 200, res.body);
        return (parse(res.body, { columns: true }) as Record<string, string>[]).map((r) => Number(r.animal_id));
      };
      assert.ok((await ids('2024-06-15', '2024-06-15')).includes(late.id), 'in the book of its acquiredAt');
      assert.ok(!(await ids('2024-06-14', '2024-06-14')).includes(late.id), 'not the day before');
      assert.ok(!(await ids(today(), today())).includes(late.id), 'not the day it was added');
    });

    test('walks the animals a page at a time without a gap or a repeat, refuses a period backwards, and takes customers:read', async (t) => {
      const { app, auth, storage } = await appFor(t);
      for (let i = 0; i < 5; i++) await post(app, auth, '/v1/pets', { name: `p${i}`, categoryId: 1 });
      const from = new Date(`${today()}T00:00:00.000Z`);
      const to = new Date(from.getTime() + 24 * 60 * 60 * 1000);
      const whole = await text(dealerBook(storage.dealerBook, from, to));
      for (const pageSize of [1, 2, 3]) assert.equal(await text(dealerBook(storage.dealerBook, from, to, pageSize)), whole, `pages of ${pageSize}`);
      const ids = (parse(whole, { columns: true }) as { animal_id: string }[]).map((r) => Number(r.animal_id));
      assert.ok(ids.length >= 5);
      assert.deepEqual(
        ids,
        [...new Set(ids)].sort((a, b) => a - b),
      );
      assertError(await app.inject({ method: 'GET', url: '/v1/records/dealer-book?from=2026-02-02&to=2026-02-01', headers: auth }), 400, 'validation_failed');
      assertError(await app.inject({ method: 'GET', url: '/v1/records/dealer-book?from=2026-02-30&to=2026-03-01', headers: auth }), 400, 'validation_failed');
      const till = await keyWithScopes(storage, ['orders:read', 'pets:read']);
      assertError(await app.inject({ method: 'GET', url: `/v1/records/dealer-book?from=${today()}&to=${today()}`, headers: till }), 403, 'insufficient_scope');
    });
  });
}
