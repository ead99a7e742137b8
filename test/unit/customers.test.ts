// The pure rules of issue 37: what `q` compares, a customer's merge patch, what an erasure keeps and
// until when, a CSV field of the dealer's book, and the bill of sale's settings read at start.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, DEFAULT_SALE_DISCLOSURE, loadConfig } from '../../src/config.ts';
import type { Customer } from '../../src/customers/customer.schemas.ts';
import { customerNeedle, customerSearchText } from '../../src/customers/customer.search.ts';
import { patchCustomer, saleRetention } from '../../src/customers/customer.service.ts';
import type { Order } from '../../src/store/order.schemas.ts';

const AT = '2026-01-01T00:00:00.000Z';
const ALEX: Customer = {
  id: 1,
  name: 'Zoë Ørsted',
  email: 'Zoe@Example.com',
  phone: '+44 (20) 7946-0958',
  address: { line1: '1 Main St', line2: 'Flat 2', city: 'Leeds', postalCode: 'LS1 1AA', country: 'GB' },
  createdAt: AT,
  updatedAt: AT,
};

test('q is compared folded, and by its digits when written as a telephone number', () => {
  const text = customerSearchText(ALEX);
  assert.ok(text.includes('zoe orsted') && text.includes('zoe@example.com') && text.includes('442079460958'));
  assert.equal(customerNeedle('  ZOË '), 'zoe');
  assert.equal(customerNeedle('020 7946-0958'), '02079460958');
  assert.equal(customerNeedle('+44'), '44');
  assert.equal(customerNeedle('flat 2'), 'flat 2', 'words with a digit stay words');
});

test('a merge patch merges the address member by member, null removes, an equal patch changes nothing', () => {
  const { next, changed } = patchCustomer(ALEX, { phone: null, address: { line2: null, city: 'York' } });
  assert.equal(changed, true);
  assert.equal(next.phone, undefined);
  assert.deepEqual(next.address, { line1: '1 Main St', city: 'York', postalCode: 'LS1 1AA', country: 'GB' });
  assert.equal(patchCustomer(ALEX, { name: ALEX.name, address: { country: 'GB' } }).changed, false);
});

test('an erasure keeps the name and address until the last delivered sale plus the period, and nothing once it ended', () => {
  const order = (id: number, status: Order['status'], updatedAt: string): Order => ({ id, petId: 1, status, createdAt: AT, updatedAt });
  const orders = [
    order(1, 'delivered', '2026-01-10T00:00:00.000Z'),
    order(2, 'delivered', '2026-03-01T00:00:00.000Z'),
    order(3, 'cancelled', '2026-05-01T00:00:00.000Z'),
  ];
  const kept = saleRetention(orders, 730, new Date('2026-06-01T00:00:00.000Z'));
  assert.deepEqual([kept?.order.id, kept?.until.toISOString()], [2, '2028-02-29T00:00:00.000Z']);
  assert.equal(saleRetention(orders, 730, new Date('2028-02-29T00:00:00.000Z')), undefined);
  assert.equal(saleRetention([orders[2]], 730, new Date(AT)), undefined, 'a cancelled order is no sale');
});

test('SALE_DISCLOSURE_FILE is read once at start; an unreadable one stops start-up naming it', () => {
  assert.equal(loadConfig({}).store.disclosure, DEFAULT_SALE_DISCLOSURE);
  const dir = mkdtempSync(join(tmpdir(), 'disclosure-'));
  try {
    const file = join(dir, 'disclosure.txt');
    writeFileSync(file, 'Health guaranteed for 14 days.\n');
    assert.equal(loadConfig({ SALE_DISCLOSURE_FILE: file }).store.disclosure, 'Health guaranteed for 14 days.\n');
    assert.throws(
      () => loadConfig({ SALE_DISCLOSURE_FILE: join(dir, 'missing.txt') }),
      (err: unknown) => err instanceof ConfigError && /SALE_DISCLOSURE_FILE/.test(String(err)),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
