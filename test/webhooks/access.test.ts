// One read rule for every way an event leaves (issue 34, item 1): an endpoint reads as the key that
// owns it now, and is managed — changed, rotated, deleted, its deliveries retried — only by that key,
// the keys above it and owner keys; a new URL is sent nothing owed to the old one; a delivery the
// endpoint may no longer be sent is skipped, with its reason, when its time comes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Scope } from '../../src/keys/key.types.ts';
import { keyWithScopes } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';
import { eventually } from '../helpers/receiver.ts';
import { movableClock, webhookTest, type WebhookTest } from './helpers.ts';

type Headers = { authorization: string };

/** A key made through the API by `parent` (which holds keys:admin): it is below `parent` in the key tree. */
async function mint(w: WebhookTest, parent: Headers, scopes: Scope[]): Promise<Headers & { id: number }> {
  const res = await w.app.inject({ method: 'POST', url: '/v1/keys', headers: parent, payload: { name: 'child', scopes } });
  assert.equal(res.statusCode, 201, res.body);
  return { authorization: `Bearer ${res.json().key}`, id: res.json().id };
}

async function placeOrder(w: WebhookTest): Promise<void> {
  const pet = await w.createPet('Ordered');
  const res = await w.app.inject({ method: 'POST', url: '/v1/store/orders', headers: w.auth, payload: { petId: pet.id } });
  assert.equal(res.statusCode, 201, res.body);
}

for (const engine of ENGINES) {
  describe(`${engine}: who manages a webhook endpoint and what it is sent`, () => {
    test("a key outside the owner's branch cannot redirect, retry, rotate or delete an endpoint (403 forbidden); the owner's order events never reach it", async (t) => {
      const w = await webhookTest(t, engine);
      const x = await keyWithScopes(w.storage, ['webhooks:admin', 'pets:read', 'orders:read']);
      const y = await keyWithScopes(w.storage, ['webhooks:admin', 'pets:read']);
      const hook = (
        await w.app.inject({
          method: 'POST',
          url: '/v1/webhooks',
          headers: x,
          payload: { url: `${w.receiver.url}/x`, events: ['pet.created', 'order.placed'] },
        })
      ).json();
      await placeOrder(w);
      await w.receiver.waitFor(2, 10_000, (r) => r.path === '/hooks/x');
      const delivery = (await w.deliveries(hook.id)).find((d) => d.status === 'succeeded' && d.eventId !== null)!;

      const attempts = [
        { method: 'PATCH', url: `/v1/webhooks/${hook.id}`, payload: { url: `${w.receiver.url}/y`, events: ['pet.created'] } },
        { method: 'POST', url: `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/retry` },
        { method: 'POST', url: `/v1/webhooks/${hook.id}/rotate-secret` },
        { method: 'DELETE', url: `/v1/webhooks/${hook.id}` },
      ] as const;
      for (const a of attempts) {
        const res = await w.app.inject({ ...a, headers: y });
        assert.equal(res.statusCode, 403, `${a.method} ${a.url}: ${res.body}`);
        assert.equal(res.json().code, 'forbidden');
        assert.match(res.json().message, new RegExp(`does not manage webhook ${hook.id}, which belongs to key ${hook.keyId}`));
      }
      const after = (await w.app.inject({ method: 'GET', url: `/v1/webhooks/${hook.id}`, headers: w.auth })).json();
      assert.equal(after.url, `${w.receiver.url}/x`, 'unchanged');
      assert.equal(after.keyId, hook.keyId);
      assert.equal(
        w.receiver.received.filter((r) => r.path !== '/hooks/x').length,
        0,
        "nothing reached another URL: the order's data went only where its reader chose",
      );
    });

    test('the owner key, a key above it and an owner key manage the endpoint; a key below the owner does not', async (t) => {
      const w = await webhookTest(t, engine);
      const parent = await keyWithScopes(w.storage, ['webhooks:admin', 'pets:read', 'keys:admin']);
      const owner = await mint(w, parent, ['webhooks:admin', 'pets:read', 'keys:admin']);
      const below = await mint(w, owner, ['webhooks:admin', 'pets:read']);
      const register = async () =>
        (await w.app.inject({ method: 'POST', url: '/v1/webhooks', headers: owner, payload: { url: w.receiver.url, events: ['pet.created'] } })).json() as {
          id: number;
        };
      const hook = await register();
      const rotate = (headers: Headers) => w.app.inject({ method: 'POST', url: `/v1/webhooks/${hook.id}/rotate-secret`, headers });
      assert.equal((await rotate(below)).statusCode, 403, 'a key below the owner manages only its own branch');
      assert.equal((await rotate(owner)).statusCode, 200);
      assert.equal((await rotate(parent)).statusCode, 200);
      assert.equal((await rotate(w.auth)).statusCode, 200, 'an owner key manages every endpoint');
      assert.equal((await w.app.inject({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, headers: parent })).statusCode, 204);
    });

    test('a changed URL is sent nothing owed to the old one: pending attempts are dropped, saying why', async (t) => {
      const clock = movableClock();
      const w = await webhookTest(t, engine, {
        clock,
        env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,60000' },
        answer: (r) => (r.path === '/hooks/old' ? 500 : 200),
      });
      const hook = (
        await w.app.inject({ method: 'POST', url: '/v1/webhooks', headers: w.auth, payload: { url: `${w.receiver.url}/old`, events: ['pet.created'] } })
      ).json();
      await w.createPet('Owed');
      await w.receiver.waitFor(1);
      // The retry due in a minute is pending when the URL changes.
      const pending = await eventually(async () => (await w.deliveries(hook.id)).find((d) => d.status === 'pending' && d.attempt === 2));
      const changed = await w.app.inject({ method: 'PATCH', url: `/v1/webhooks/${hook.id}`, headers: w.auth, payload: { url: `${w.receiver.url}/new` } });
      assert.equal(changed.statusCode, 200, changed.body);
      const dropped = (await w.deliveries(hook.id)).find((d) => d.id === pending.id)!;
      assert.deepEqual([dropped.status, dropped.error, dropped.nextAttemptAt], ['failed', "not attempted: the endpoint's URL changed", null]);
      clock.moveTo(new Date(Date.now() + 120_000));
      await w.createPet('After');
      await w.receiver.waitFor(1, 10_000, (r) => r.path === '/hooks/new');
      await clock.looks(5);
      assert.deepEqual(
        w.receiver.received.map((r) => [r.path, JSON.parse(r.body).data.name]),
        [
          ['/hooks/old', 'Owed'],
          ['/hooks/new', 'After'],
        ],
      );
    });

    test('an attempt the endpoint may no longer be sent is skipped when due, with its reason, no retry and no failure counted; retrying it is refused', async (t) => {
      const clock = movableClock();
      const w = await webhookTest(t, engine, {
        clock,
        env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,60000' },
        answer: (r) => (JSON.parse(r.body).type === 'order.placed' ? 500 : 200),
      });
      const x = await keyWithScopes(w.storage, ['webhooks:admin', 'pets:read', 'orders:read']);
      const hook = (
        await w.app.inject({ method: 'POST', url: '/v1/webhooks', headers: x, payload: { url: w.receiver.url, events: ['pet.created', 'order.placed'] } })
      ).json();
      await placeOrder(w);
      await w.receiver.waitFor(1, 10_000, (r) => r.body.includes('order.placed'));
      const retry = await eventually(async () => (await w.deliveries(hook.id)).find((d) => d.status === 'pending' && d.attempt === 2));
      // The owner narrows the subscription: the order's retry is owed no more.
      const narrowed = await w.app.inject({ method: 'PATCH', url: `/v1/webhooks/${hook.id}`, headers: x, payload: { events: ['pet.created'] } });
      assert.equal(narrowed.statusCode, 200, narrowed.body);
      clock.moveTo(new Date(Date.now() + 120_000));
      const skipped = await eventually(async () => {
        const d = (await w.deliveries(hook.id)).find((e) => e.id === retry.id);
        return d?.status === 'pending' ? undefined : d;
      });
      assert.deepEqual(
        [skipped.status, skipped.error, skipped.httpStatus, skipped.nextAttemptAt],
        ['failed', 'not sent: the endpoint no longer subscribes to order.placed', null, null],
      );
      assert.equal(w.receiver.received.filter((r) => r.body.includes('order.placed')).length, 1, 'sent once, before the change');
      const res = await w.app.inject({ method: 'POST', url: `/v1/webhooks/${hook.id}/deliveries/${retry.id}/retry`, headers: x });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().code, 'forbidden');
      assert.match(res.json().message, /is not sent to webhook \d+ again: the endpoint no longer subscribes to order.placed/);
      const endpoint = (await w.app.inject({ method: 'GET', url: `/v1/webhooks/${hook.id}`, headers: w.auth })).json();
      assert.equal(endpoint.enabled, true);
    });

    test('a key that is not an owner key owns at most half of WEBHOOK_MAX_ENDPOINTS, counted over its tree; an owner key registers the rest', async (t) => {
      const w = await webhookTest(t, engine, { env: { WEBHOOK_MAX_ENDPOINTS: '4' } });
      const root = await mint(w, w.auth, ['webhooks:admin', 'pets:read', 'keys:admin']);
      const child = await mint(w, root, ['webhooks:admin', 'pets:read']);
      const post = (headers: Headers) =>
        w.app.inject({ method: 'POST', url: '/v1/webhooks', headers, payload: { url: w.receiver.url, events: ['pet.created'] } });
      assert.equal((await post(root)).statusCode, 201);
      assert.equal((await post(child)).statusCode, 201);
      const refused = await post(child);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal(refused.json().code, 'webhook_limit_reached');
      assert.match(refused.json().message, new RegExp(`key ${root.id} and the keys below it\\) own 2 webhook endpoints`));
      assert.equal((await post(root)).statusCode, 409, 'the same tree');
      const other = await mint(w, w.auth, ['webhooks:admin', 'pets:read']);
      assert.equal((await post(other)).statusCode, 201, 'another tree has its own share');
      assert.equal((await post(w.auth)).statusCode, 201, 'an owner key is bounded by the store only');
      assert.equal((await post(w.auth)).statusCode, 409);
    });
  });
}
