// The one read rule of events (src/events/event.access.ts) and an endpoint's refusal (src/webhooks/webhook.access.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertMayRead, mayRead, readableTypes, readScopeOf } from '../../src/events/event.access.ts';
import { EVENT_TYPES } from '../../src/events/event.schemas.ts';
import { refusal } from '../../src/webhooks/webhook.access.ts';
import { rejectsWith } from '../helpers/errors.ts';

test('every event type is read with the scope that reads its resource', () => {
  assert.deepEqual(Object.fromEntries(EVENT_TYPES.map((t) => [t, readScopeOf(t)])), {
    'pet.created': 'pets:read',
    'pet.updated': 'pets:read',
    'pet.deleted': 'pets:read',
    'order.placed': 'orders:read',
    'order.approved': 'orders:read',
    'order.delivered': 'orders:read',
    'order.cancelled': 'orders:read',
    'category.created': 'pets:read',
    'category.updated': 'pets:read',
    'category.deleted': 'pets:read',
    'pet.health.recorded': 'health:read',
    'pet.health.voided': 'health:read',
    'customer.created': 'customers:read',
    'customer.updated': 'customers:read',
    'customer.deleted': 'customers:read',
    'hold.placed': 'orders:read',
    'hold.cancelled': 'orders:read',
    'hold.converted': 'orders:read',
    'hold.expired': 'orders:read',
  });
  assert.equal(mayRead(['events:read'], 'pet.created'), false, 'events:read alone reads nothing');
  assert.deepEqual(readableTypes(['orders:read']), [
    'order.placed',
    'order.approved',
    'order.delivered',
    'order.cancelled',
    'hold.placed',
    'hold.cancelled',
    'hold.converted',
    'hold.expired',
  ]);
  assert.deepEqual(readableTypes(['pets:read', 'health:read', 'orders:read', 'customers:read']), [...EVENT_TYPES]);
  assert.deepEqual(readableTypes(['customers:read']), ['customer.created', 'customer.updated', 'customer.deleted']);
  assert.throws(() => assertMayRead(['pets:read', 'orders:read'], 'customer.updated'), rejectsWith('insufficient_scope', /lacks customers:read/));
  assert.throws(() => assertMayRead(['pets:read'], 'pet.health.recorded'), rejectsWith('insufficient_scope', /lacks health:read/));
  assert.throws(() => assertMayRead(['pets:read'], 'order.placed'), rejectsWith('insufficient_scope', /lacks orders:read/));
  assertMayRead(['pets:read'], 'category.deleted');
});

test('an endpoint is refused an event it no longer subscribes to, or one its owner key cannot read', () => {
  const endpoint = { keyId: 4, events: ['pet.created', 'order.placed'] as const };
  assert.equal(refusal({ ...endpoint, events: [...endpoint.events] }, ['pets:read', 'orders:read'], 'order.placed'), null);
  assert.equal(
    refusal({ keyId: 4, events: ['pet.created'] }, ['pets:read', 'orders:read'], 'order.placed'),
    'the endpoint no longer subscribes to order.placed',
  );
  assert.equal(
    refusal({ keyId: 4, events: null }, ['pets:read'], 'order.placed'),
    'the API key that owns the endpoint (key 4) lacks orders:read, the scope that reads order.placed events',
  );
});
