// A subscription never reads more than its key (issue 26, item 2): registering or changing an
// endpoint takes the read scope of every event type it subscribes to; the endpoint records the key
// that made it (or last changed it), and stops — disabled at its next delivery — once that key is
// revoked or expires. Endpoints without a key (a bootstrap key's, or older than owners) go on.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { revokeApiKey } from '../../src/keys/key.service.ts';
import type { Scope } from '../../src/keys/key.types.ts';
import { fixedClock, keyWithScopes } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';
import { eventually } from '../helpers/receiver.ts';
import { webhookTest, type WebhookTest } from './helpers.ts';

const BOOTSTRAP = 'bootstrap-key-of-the-ownership-test';

const keyId = async (w: WebhookTest, headers: { authorization: string }): Promise<number> => {
  const res = await w.app.inject({ method: 'GET', url: '/v1/keys?limit=100', headers: w.auth });
  const prefix = headers.authorization.slice('Bearer '.length, 'Bearer '.length + 8);
  return res.json().find((k: { prefix: string }) => k.prefix === prefix).id;
};

for (const engine of ENGINES) {
  describe(`${engine}: webhook subscriptions and their owner key`, () => {
    test('registering or changing an endpoint takes the read scope of every event type subscribed; else 403 insufficient_scope', async (t) => {
      const w = await webhookTest(t, engine);
      const as = (scopes: Scope[]) => keyWithScopes(w.storage, ['webhooks:admin', ...scopes]);
      const post = async (headers: { authorization: string }, events?: string[]) =>
        w.app.inject({ method: 'POST', url: '/v1/webhooks', headers, payload: { url: w.receiver.url, ...(events && { events }) } });
      const adminOnly = await as([]);
      const pets = await as(['pets:read']);
      const orders = await as(['orders:read']);
      const every = await as(['pets:read', 'health:read', 'orders:read', 'customers:read']);

      const refusals: [{ authorization: string }, string[] | undefined, string][] = [
        [adminOnly, ['pet.created'], 'pets:read'],
        [adminOnly, ['category.deleted'], 'pets:read'],
        [adminOnly, ['order.placed'], 'orders:read'],
        [adminOnly, undefined, 'pets:read health:read orders:read customers:read'],
        [pets, ['pet.updated', 'order.approved'], 'orders:read'],
        [pets, undefined, 'health:read orders:read customers:read'],
        [pets, ['pet.created', 'pet.health.voided'], 'health:read'],
        [orders, ['order.placed', 'category.created'], 'pets:read'],
      ];
      for (const [headers, events, missing] of refusals) {
        const res = await post(headers, events);
        assert.equal(res.statusCode, 403, `${events ?? 'every type'}: ${res.body}`);
        assert.equal(res.json().code, 'insufficient_scope');
        assert.match(res.json().message, new RegExp(`lacks ${missing.replaceAll(' ', ' and ')}: subscribing to`));
        assert.equal(res.headers['www-authenticate'], `Bearer realm="petstore", error="insufficient_scope", scope="${missing}"`);
      }
      assert.equal((await w.app.inject({ method: 'GET', url: '/v1/webhooks', headers: w.auth })).json().length, 0, 'nothing registered');

      assert.equal((await post(pets, ['pet.created', 'category.created'])).statusCode, 201);
      assert.equal((await post(orders, ['order.placed'])).statusCode, 201);
      const mine = await post(every);
      assert.equal(mine.statusCode, 201, 'every type: every read scope');

      // A change is judged on the subscription it leaves, whatever it changes.
      const hook = (await post(pets, ['pet.created'])).json();
      const patch = (headers: { authorization: string }, payload: object, id = hook.id) =>
        w.app.inject({ method: 'PATCH', url: `/v1/webhooks/${id}`, headers, payload });
      assert.equal((await patch(pets, { events: ['pet.created', 'order.placed'] })).statusCode, 403);
      assert.equal((await patch(pets, { events: null })).statusCode, 403);
      // A key that does not manage the endpoint is refused first (access.test.ts); an owner key with both scopes may.
      assert.equal((await patch(adminOnly, { url: `${w.receiver.url}/elsewhere` })).statusCode, 403);
      assert.equal((await patch(pets, { url: `${w.receiver.url}/elsewhere` }, mine.json().id)).statusCode, 403);
      assert.equal((await patch(w.auth, { events: ['order.placed'] })).statusCode, 200);
    });

    test('an endpoint records its key (keyId); a change by a key above it makes that key its owner', async (t) => {
      const w = await webhookTest(t, engine);
      const b = await keyWithScopes(w.storage, ['webhooks:admin', 'pets:read', 'keys:admin']);
      const made = await w.app.inject({ method: 'POST', url: '/v1/keys', headers: b, payload: { name: 'a', scopes: ['webhooks:admin', 'pets:read'] } });
      const a = { authorization: `Bearer ${made.json().key}` };
      const created = await w.app.inject({ method: 'POST', url: '/v1/webhooks', headers: a, payload: { url: w.receiver.url, events: ['pet.created'] } });
      assert.equal(created.json().keyId, await keyId(w, a));
      const got = await w.app.inject({ method: 'GET', url: `/v1/webhooks/${created.json().id}`, headers: w.auth });
      assert.equal(got.json().keyId, await keyId(w, a));
      const changed = await w.app.inject({ method: 'PATCH', url: `/v1/webhooks/${created.json().id}`, headers: b, payload: { description: 'b now' } });
      assert.equal(changed.json().keyId, await keyId(w, b));
    });

    test('once its key is revoked, the endpoint is sent nothing: its next delivery disables it, saying why; an ownerless endpoint goes on', async (t) => {
      const w = await webhookTest(t, engine, { env: { PETSTORE_API_KEYS: BOOTSTRAP } });
      const owner = await keyWithScopes(w.storage, ['webhooks:admin', 'pets:read']);
      const owned = (
        await w.app.inject({ method: 'POST', url: '/v1/webhooks', headers: owner, payload: { url: `${w.receiver.url}/owned`, events: ['pet.created'] } })
      ).json();
      // A bootstrap key's endpoint has no owner key, as those registered before endpoints recorded theirs.
      const bootstrap = { authorization: `Bearer ${BOOTSTRAP}` };
      const legacy = (await w.app.inject({ method: 'POST', url: '/v1/webhooks', headers: bootstrap, payload: { url: `${w.receiver.url}/legacy` } })).json();
      assert.equal(legacy.keyId, null);

      await w.createPet('Before');
      await w.receiver.waitFor(2);
      assert.deepEqual(w.receiver.received.map((r) => r.path).sort(), ['/hooks/legacy', '/hooks/owned']);

      await revokeApiKey(w.storage, await keyId(w, owner), { now: new Date() });
      await w.createPet('After');
      const log = await eventually(async () => {
        const l = await w.deliveries(owned.id);
        return l[0]?.type === 'webhook.disabled' ? l : undefined;
      });
      assert.deepEqual(
        log.slice(0, 2).map((d) => [d.type, d.status, d.error]),
        [
          [
            'webhook.disabled',
            'failed',
            `the API key that owns the endpoint (key ${owned.keyId}) is revoked or expired; enable the endpoint again with another key to resume with new events`,
          ],
          ['attempt', 'failed', 'not sent: the API key that owns the endpoint (keyId) is revoked or expired'],
        ],
      );
      assert.equal(log[1].httpStatus, null);
      assert.equal(log[1].nextAttemptAt, null, 'no retry');
      const endpoint = (await w.app.inject({ method: 'GET', url: `/v1/webhooks/${owned.id}`, headers: w.auth })).json();
      assert.equal(endpoint.enabled, false);
      await w.receiver.waitFor(3);
      assert.deepEqual(
        w.receiver.received.map((r) => [r.path, JSON.parse(r.body).data.name]).sort(),
        [
          ['/hooks/legacy', 'After'],
          ['/hooks/legacy', 'Before'],
          ['/hooks/owned', 'Before'],
        ],
        'after the revocation only the ownerless endpoint receives',
      );

      // Enabled again by a key that stands, it is that key's and resumes.
      const enabled = await w.app.inject({ method: 'PATCH', url: `/v1/webhooks/${owned.id}`, headers: w.auth, payload: { enabled: true } });
      assert.equal(enabled.json().keyId, await keyId(w, w.auth));
      await w.createPet('Again');
      await w.receiver.waitFor(1, 10_000, (r) => r.path === '/hooks/owned' && r.body.includes('Again'));
    });

    test('once its key has expired, the endpoint is disabled at its next delivery', async (t) => {
      const clock = fixedClock(new Date('2026-11-27T12:00:00.000Z'));
      const w = await webhookTest(t, engine, { clock });
      const res = await w.app.inject({
        method: 'POST',
        url: '/v1/keys',
        headers: w.auth,
        payload: { name: 'expiring', scopes: ['webhooks:admin', 'pets:read'], expiresAt: '2026-11-27T13:00:00Z' },
      });
      assert.equal(res.statusCode, 201, res.body);
      const expiring = { authorization: `Bearer ${res.json().key}` };
      const hook = (
        await w.app.inject({ method: 'POST', url: '/v1/webhooks', headers: expiring, payload: { url: w.receiver.url, events: ['pet.created'] } })
      ).json();
      assert.equal(hook.keyId, res.json().id);
      clock.set(new Date('2026-11-27T13:00:00.000Z'));
      await w.createPet();
      const log = await eventually(async () => {
        const l = await w.deliveries(hook.id);
        return l[0]?.type === 'webhook.disabled' ? l : undefined;
      });
      assert.match(log[0].error ?? '', /is revoked or expired/);
      assert.equal(w.receiver.received.length, 0, 'nothing sent');
    });
  });
}
