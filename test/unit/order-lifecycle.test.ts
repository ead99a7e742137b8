import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ORDER_STATUSES } from '../../src/store/order.schemas.ts';
import { canTransition, petStatusFor } from '../../src/store/order.lifecycle.ts';

test('exactly the documented transitions are allowed', () => {
  const allowed = ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}→${to}`));
  assert.deepEqual(allowed.sort(), ['approved→cancelled', 'approved→delivered', 'placed→approved', 'placed→cancelled']);
});

test('each order state implies the pet status', () => {
  assert.deepEqual(ORDER_STATUSES.map(petStatusFor), ['pending', 'pending', 'sold', 'available']);
});
