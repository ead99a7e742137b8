// The bill of sale (issue 37 §3): the order's printable document, on every engine through inject,
// and in headless Chromium with a stored-XSS attempt in every customer and pet field and in the
// store's own settings, each shown as text, under the console's CSP.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { chromium } from 'playwright-core';
import { CONSOLE_CSP } from '../../src/http/ops/console.ts';
import { buildTestApp, keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';
import { assertError } from '../helpers/errors.ts';

type Auth = { authorization: string };
const XSS = (where: string) => `<script>alert("${where}")</script><img src=x onerror=alert('${where}')>&amp;`;
const ENV = { STORE_NAME: XSS('store'), STORE_ADDRESS: '1 High Street\nTown', STORE_LICENCE: 'NY-402-1234' };

async function post(app: FastifyInstance, auth: Auth, url: string, payload: object): Promise<{ id: number }> {
  const res = await app.inject({ method: 'POST', url, headers: auth, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

/** A delivered sale whose buyer and animal carry script in every text field. */
async function hostileSale(app: FastifyInstance, auth: Auth): Promise<number> {
  const category = await post(app, auth, '/v1/categories', { name: XSS('category') });
  const pet = await post(app, auth, '/v1/pets', {
    name: XSS('pet'),
    categoryId: category.id,
    description: XSS('description'),
    tags: ['calm'],
    price: { amount: 120000 },
    breed: { primary: XSS('breed'), mixed: true, secondary: XSS('breed2') },
    sex: 'female',
    colour: XSS('colour'),
    birthDate: '2025-01-01',
    microchip: '985112345678903',
    acquiredAt: '2025-03-01',
    source: { kind: 'breeder', name: XSS('source'), address: XSS('source address'), licence: XSS('licence') },
  });
  await post(app, auth, `/v1/pets/${pet.id}/health`, {
    kind: 'vaccination',
    date: '2025-03-01',
    name: XSS('vaccine'),
    batch: XSS('batch'),
    givenBy: XSS('vet'),
    nextDue: '2026-03-01',
  });
  const customer = await post(app, auth, '/v1/customers', {
    name: XSS('buyer'),
    email: 'x@example.com',
    address: { line1: XSS('line1'), line2: XSS('line2'), city: XSS('city'), postalCode: '<b>1</b>', region: XSS('region'), country: 'US' },
  });
  const hold = await post(app, auth, `/v1/pets/${pet.id}/holds`, {
    customerId: customer.id,
    until: new Date(Date.now() + 3_600_000).toISOString(),
    deposit: { amount: 5000 },
  });
  const order = await post(app, auth, `/v1/holds/${hold.id}/convert`, {});
  for (const status of ['approved', 'delivered']) {
    const res = await app.inject({ method: 'PATCH', url: `/v1/store/orders/${order.id}`, headers: auth, payload: { status } });
    assert.equal(res.statusCode, 200, res.body);
  }
  return order.id;
}

for (const engine of ENGINES) {
  describe(`bill of sale (${engine})`, () => {
    const appFor = sharedTestApp(engine, { env: ENV });

    test('is an HTML document under the console CSP, every stored value escaped, naming store, buyer, animal, health log, price, deposit and method', async (t) => {
      const { app, auth } = await appFor(t);
      const orderId = await hostileSale(app, auth);
      const res = await app.inject({ method: 'GET', url: `/v1/store/orders/${orderId}/bill-of-sale`, headers: auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(res.headers['content-security-policy'], CONSOLE_CSP);
      assert.doesNotMatch(res.body, /<script|<img|<b>/i, 'no markup from stored data');
      for (const where of [
        'store',
        'pet',
        'category',
        'vaccine',
        'batch',
        'vet',
        'buyer',
        'line1',
        'line2',
        'city',
        'region',
        'breed',
        'breed2',
        'colour',
        'source',
        'source address',
        'licence',
      ]) {
        assert.ok(res.body.includes(`&#60;script&#62;alert(&#34;${where}&#34;)`), `${where} shown as text`);
      }
      for (const text of [
        'NY-402-1234',
        '1200.00 EUR',
        '50.00 EUR',
        'sale',
        'delivered',
        '2025-03-01',
        'examined by a veterinarian',
        '985112345678903',
        'female',
        '2025-01-01',
        ' × ',
      ]) {
        assert.ok(res.body.includes(text), text);
      }
      assert.match(res.body, /<link rel="stylesheet" href="\/print\/bill-of-sale\.css">/);
    });

    test('names the buyer, so it takes customers:read; an unknown order is 404', async (t) => {
      const { app, auth, storage } = await appFor(t);
      const orderId = await hostileSale(app, auth);
      const till = await keyWithScopes(storage, ['orders:read']);
      assertError(await app.inject({ method: 'GET', url: `/v1/store/orders/${orderId}/bill-of-sale`, headers: till }), 403, 'insufficient_scope');
      assertError(await app.inject({ method: 'GET', url: '/v1/store/orders/999999/bill-of-sale', headers: auth }), 404, 'not_found');
      const css = await app.inject({ method: 'GET', url: '/print/bill-of-sale.css' });
      assert.equal(css.statusCode, 200);
      assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
      assert.match(css.body, /@page/);
    });
  });
}

const CHROMIUM = '/usr/bin/chromium';
const skipBrowser = !existsSync(CHROMIUM) && !process.env.CI ? `${CHROMIUM} not found (apt-get install chromium); CI runs this test` : false;

describe('bill of sale in headless Chromium', () => {
  test('shows every stored script as text, runs none, loads only its own stylesheet, and breaks no CSP rule', {
    skip: skipBrowser,
    timeout: 90_000,
  }, async (t) => {
    const { app, auth, key } = await buildTestApp(t, { env: ENV });
    const orderId = await hostileSale(app, auth);
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    t.after(() => browser.close());
    const context = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${key}` } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    const res = await page.goto(`${base}/v1/store/orders/${orderId}/bill-of-sale`);
    assert.equal(res?.status(), 200);
    await page.waitForLoadState('load');
    assert.deepEqual(dialogs, [], 'no script ran');
    assert.deepEqual(problems, [], 'no CSP violation or failed load');
    assert.deepEqual(await page.locator('script, img').count(), 0);
    assert.deepEqual(requests.sort(), ['/print/bill-of-sale.css', `/v1/store/orders/${orderId}/bill-of-sale`]);
    const text = (await page.locator('body').textContent()) ?? '';
    for (const where of ['store', 'pet', 'buyer', 'line1', 'city', 'vaccine', 'breed', 'colour', 'source'])
      assert.ok(text.includes(XSS(where)), `${where}: the script is shown as text`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Bill of sale');
    // The stylesheet applied: the grid of labels and values.
    assert.equal(
      await page
        .locator('dl')
        .first()
        .evaluate((el) => getComputedStyle(el).display),
      'grid',
    );
  });
});
