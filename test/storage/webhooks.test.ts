// The webhook part of the storage contract: endpoints, the deliveries the outbox owes them, claims
// under leases, outcomes, retries and disabling — on every engine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Storage } from '../../src/storage/storage.ts';
import type { WebhookCreate } from '../../src/webhooks/webhook.store.ts';
import type { Webhook } from '../../src/webhooks/webhook.schemas.ts';
import { ENGINES, feedSettled, openSharedStorages, openTestStorage } from '../helpers/engines.ts';
import { rejectsWith } from '../helpers/errors.ts';
import { createPet } from '../../src/pets/pet.service.ts';
import { placeOrder } from '../../src/store/order.service.ts';
import { claimAttempts, finishAttempt, retryDelivery, type AttemptResult, type ClaimedAttempt } from '../../src/webhooks/webhook.deliveries.ts';
import { createWebhook, deleteWebhook, rotateWebhookSecret, updateWebhook } from '../../src/webhooks/webhook.service.ts';
import { createApiKey } from '../../src/keys/key.service.ts';
import { SCOPES } from '../../src/keys/key.types.ts';
import { petRecord } from '../helpers/pets.ts';

/** Endpoints made here belong to no key (as a bootstrap key's) and may subscribe to anything. */
const OWNER = { keyId: null, scopes: SCOPES, owner: true };

const T0 = new Date('2026-07-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
let tokens = 0;

const endpoint = (storage: Storage, events: WebhookCreate['events'] = null, url = 'https://hooks.example.com/a') =>
  createWebhook(storage, { url, events, description: null, secret: 'sealed-secret' }, OWNER, 16, { now: T0 });
const newPet = (storage: Storage, now = T0) => createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status: 'available' }), { now });

async function claim(
  storage: Storage,
  now: Date,
  { max = 100, perEndpoint = 100, perHost = 100, leaseMs = 10_000 } = {},
): Promise<{ token: string; claimed: ClaimedAttempt[] }> {
  const token = `token-${++tokens}`;
  return { token, claimed: await claimAttempts(storage, { now, leaseUntil: new Date(now.getTime() + leaseMs), token, max, perEndpoint, perHost }) };
}

function result(a: ClaimedAttempt, token: string, succeeded: boolean, attemptedAt: Date, more: Partial<AttemptResult> = {}): AttemptResult {
  return {
    attempt: a,
    token,
    succeeded,
    httpStatus: succeeded ? 200 : 500,
    durationMs: 12,
    error: succeeded ? null : 'HTTP 500',
    attemptedAt,
    retryAt: succeeded ? null : new Date(attemptedAt.getTime() + 5_000),
    disableIfFailingSince: new Date(attemptedAt.getTime() - 3_600_000),
    ...more,
  };
}

for (const engine of ENGINES) {
  describe(`${engine} storage: webhooks`, () => {
    test('endpoints: create, get, list in pages, update (events null = every type), rotate, delete', async (t) => {
      const storage = await openTestStorage(t, engine);
      const a = await endpoint(storage, ['pet.created', 'order.placed']);
      const b = await createWebhook(storage, { url: 'https://b.example.com/', events: null, description: 'shop', secret: 's' }, OWNER, 16, { now: T0 });
      assert.deepEqual(a, {
        id: a.id,
        url: 'https://hooks.example.com/a',
        events: ['pet.created', 'order.placed'],
        description: null,
        enabled: true,
        keyId: null,
        createdAt: T0.toISOString(),
      });
      assert.deepEqual(await storage.webhooks.get(b.id), { ...b, events: null, description: 'shop' });
      assert.deepEqual(await storage.webhooks.list({ limit: 1, afterId: 0 }), [a]);
      assert.deepEqual(await storage.webhooks.list({ limit: 5, afterId: a.id }), [b]);
      const changed = await updateWebhook(storage, a.id, { events: null, description: 'x' }, OWNER, { now: at(1) });
      assert.deepEqual(changed, { ...a, events: null, description: 'x' });
      assert.deepEqual(await updateWebhook(storage, a.id, { description: null, url: 'https://c.example.com/' }, OWNER, { now: at(2) }), {
        ...a,
        events: null,
        url: 'https://c.example.com/',
      });
      await assert.rejects(updateWebhook(storage, 9999, { enabled: false }, OWNER, { now: at(3) }), rejectsWith('not_found', /webhook 9999 does not exist/));
      assert.deepEqual(await rotateWebhookSecret(storage, b.id, 'new-sealed', at(86_400_000), OWNER, { now: at(4) }), await storage.webhooks.get(b.id));
      await assert.rejects(rotateWebhookSecret(storage, 9999, 'x', at(1), OWNER, { now: at(1) }), rejectsWith('not_found', /webhook 9999 does not exist/));
      await deleteWebhook(storage, a.id, OWNER, { now: at(5) });
      await assert.rejects(deleteWebhook(storage, a.id, OWNER, { now: at(5) }), rejectsWith('not_found'));
      assert.equal(await storage.webhooks.get(a.id), undefined);
    });

    test("a write's events owe a first attempt to each enabled endpoint subscribed to their type, in the same transaction", async (t) => {
      const storage = await openTestStorage(t, engine);
      const all = await endpoint(storage, null);
      const pets = await endpoint(storage, ['pet.created', 'pet.updated']);
      const orders = await endpoint(storage, ['order.placed']);
      const off = await endpoint(storage, null);
      await updateWebhook(storage, off.id, { enabled: false }, OWNER, { now: T0 });
      const p = await newPet(storage);
      await placeOrder(storage, { petId: p.id }, { now: T0 }); // order.placed, then pet.updated
      await assert.rejects(placeOrder(storage, { petId: p.id }, { now: T0 }), rejectsWith('pet_not_available')); // refused: no event, no delivery
      await feedSettled(storage);
      const events = await storage.events.list({ limit: 10, afterId: 0 });
      assert.deepEqual(
        events.map((e) => e.type),
        ['pet.created', 'order.placed', 'pet.updated'],
      );
      const ids = (id: number) => storage.webhooks.deliveries(id, { limit: 10, beforeId: Number.MAX_SAFE_INTEGER });
      const owed = async (id: number) => (await ids(id)).map((d) => [d.eventId, d.attempt, d.status, d.type]).reverse();
      assert.deepEqual(
        await owed(all.id),
        events.map((e) => [e.id, 1, 'pending', 'attempt']),
      );
      assert.deepEqual(
        await owed(pets.id),
        [events[0], events[2]].map((e) => [e.id, 1, 'pending', 'attempt']),
      );
      assert.deepEqual(await owed(orders.id), [[events[1].id, 1, 'pending', 'attempt']]);
      assert.deepEqual(await owed(off.id), []);
      const [first] = await ids(all.id);
      assert.equal(first.nextAttemptAt, T0.toISOString());
      assert.equal(first.createdAt, T0.toISOString());
      assert.equal(first.attemptedAt, null);
      assert.equal(await storage.webhooks.oldestPending(), T0.toISOString());
    });

    test('claims lease due attempts in event-id order, at most perEndpoint in flight per endpoint; a lease that runs out is claimed again', async (t) => {
      const storage = await openTestStorage(t, engine);
      const w = await endpoint(storage);
      const other = await endpoint(storage);
      const pets = [];
      for (let i = 0; i < 3; i++) pets.push(await newPet(storage, at(-i))); // later events carry earlier clocks: order is by id
      const first = await claim(storage, T0, { perEndpoint: 2 });
      const byEndpoint = (c: ClaimedAttempt[], id: number) => c.filter((a) => a.webhookId === id).map((a) => a.event?.data);
      assert.deepEqual(byEndpoint(first.claimed, w.id), [pets[0], pets[1]]);
      assert.deepEqual(byEndpoint(first.claimed, other.id), [pets[0], pets[1]]);
      const a = first.claimed[0];
      assert.deepEqual(a.secrets, ['sealed-secret']);
      assert.equal(a.url, 'https://hooks.example.com/a');
      assert.equal(a.attempt, 1);
      assert.equal(a.event?.type, 'pet.created');
      assert.deepEqual((await claim(storage, at(1), { perEndpoint: 2 })).claimed, [], 'two in flight per endpoint already');
      const wide = await claim(storage, at(2), { perEndpoint: 3 });
      assert.deepEqual(byEndpoint(wide.claimed, w.id), [pets[2]]);
      // The claimers died: after their leases (10 s) their attempts are due again.
      const again = await claim(storage, at(10_002), { perEndpoint: 2 });
      assert.deepEqual(byEndpoint(again.claimed, w.id), [pets[0], pets[1]]);
      // …and the dead claimer can no longer record anything.
      assert.deepEqual(await finishAttempt(storage, result(a, first.token, true, at(10_003))), { recorded: false, disabled: false });
      assert.deepEqual(await finishAttempt(storage, result(again.claimed[0], again.token, true, at(10_004))), { recorded: true, disabled: false });
    });

    test('claims hold at most perHost attempts in flight per destination (host and port), whichever endpoints they are for', async (t) => {
      const storage = await openTestStorage(t, engine);
      const slow: Webhook[] = [];
      for (const path of ['a', 'b', 'c']) slow.push(await endpoint(storage, null, `https://slow.example.com/${path}`));
      const otherPort = await endpoint(storage, null, 'https://slow.example.com:8443/');
      const fast = await endpoint(storage, null, 'https://fast.example.com/');
      await newPet(storage);
      const first = await claim(storage, T0, { perHost: 2 });
      const ids = (c: ClaimedAttempt[]) => c.map((a) => a.webhookId).sort((x, y) => x - y);
      assert.deepEqual(
        ids(first.claimed),
        [slow[0].id, slow[1].id, otherPort.id, fast.id],
        'two of the three on slow.example.com; another port is another destination',
      );
      assert.deepEqual((await claim(storage, at(1), { perHost: 2 })).claimed, [], 'slow.example.com is full');
      await finishAttempt(storage, result(first.claimed.find((a) => a.webhookId === slow[0].id)!, first.token, true, at(2)));
      assert.deepEqual(ids((await claim(storage, at(3), { perHost: 2 })).claimed), [slow[2].id], 'a slot freed');
    });

    test('max bounds a claim; endpoints least recently served go first', async (t) => {
      const storage = await openTestStorage(t, engine);
      const a = await endpoint(storage);
      const b = await endpoint(storage);
      for (let i = 0; i < 3; i++) await newPet(storage);
      const one = await claim(storage, T0, { max: 1 });
      assert.equal(one.claimed.length, 1);
      assert.equal(one.claimed[0].webhookId, a.id);
      const next = await claim(storage, at(1), { max: 1 });
      assert.equal(next.claimed[0].webhookId, b.id, 'b was not served yet');
    });

    test('finish: a failure schedules the next attempt; a success clears the failures; a purged event fails without retry', async (t) => {
      const storage = await openTestStorage(t, engine);
      const w = await endpoint(storage);
      await newPet(storage);
      const c1 = await claim(storage, T0);
      assert.deepEqual(await finishAttempt(storage, result(c1.claimed[0], c1.token, false, at(10))), { recorded: true, disabled: false });
      assert.deepEqual((await claim(storage, at(4_000))).claimed, [], 'the retry is not due before 5 s');
      const c2 = await claim(storage, at(5_010));
      assert.equal(c2.claimed[0].attempt, 2);
      assert.equal(c2.claimed[0].event?.id, c1.claimed[0].event?.id);
      await finishAttempt(storage, result(c2.claimed[0], c2.token, true, at(5_020)));
      const log = await storage.webhooks.deliveries(w.id, { limit: 10, beforeId: Number.MAX_SAFE_INTEGER });
      assert.deepEqual(
        log.map(({ id: _id, createdAt: _c, ...d }) => d),
        [
          {
            type: 'attempt',
            eventId: c1.claimed[0].event!.id,
            attempt: 2,
            status: 'succeeded',
            httpStatus: 200,
            durationMs: 12,
            error: null,
            nextAttemptAt: null,
            attemptedAt: at(5_020).toISOString(),
          },
          {
            type: 'attempt',
            eventId: c1.claimed[0].event!.id,
            attempt: 1,
            status: 'failed',
            httpStatus: 500,
            durationMs: 12,
            error: 'HTTP 500',
            nextAttemptAt: at(5_010).toISOString(),
            attemptedAt: at(10).toISOString(),
          },
        ],
      );
      assert.equal(await storage.webhooks.oldestPending(), undefined);
      assert.deepEqual(await storage.webhooks.deliveries(w.id, { limit: 1, beforeId: log[0].id }), [log[1]], 'pages newest first');
    });

    test('an endpoint failing since before disableIfFailingSince is disabled: pending attempts dropped, a webhook.disabled entry logged', async (t) => {
      const storage = await openTestStorage(t, engine);
      const w = await endpoint(storage);
      await newPet(storage);
      await newPet(storage);
      const c1 = await claim(storage, T0, { perEndpoint: 1 });
      await finishAttempt(storage, result(c1.claimed[0], c1.token, false, at(0), { disableIfFailingSince: at(-1) }));
      assert.equal((await storage.webhooks.get(w.id))!.enabled, true, 'failing for 0 s only');
      const c2 = await claim(storage, at(1), { perEndpoint: 1 });
      const later = at(3 * 3_600_000);
      assert.deepEqual(await finishAttempt(storage, result(c2.claimed[0], c2.token, false, later, { disableIfFailingSince: at(2 * 3_600_000) })), {
        recorded: true,
        disabled: true,
      });
      assert.equal((await storage.webhooks.get(w.id))!.enabled, false);
      const log = await storage.webhooks.deliveries(w.id, { limit: 10, beforeId: Number.MAX_SAFE_INTEGER });
      assert.deepEqual(log[0], {
        id: log[0].id,
        type: 'webhook.disabled',
        eventId: null,
        attempt: null,
        status: 'failed',
        httpStatus: null,
        durationMs: null,
        error: `every attempt since ${T0.toISOString()} failed (WEBHOOK_DISABLE_AFTER_HOURS); enable the endpoint again to resume with new events`,
        nextAttemptAt: null,
        attemptedAt: null,
        createdAt: later.toISOString(),
      });
      assert.ok(
        log.every((d) => d.status !== 'pending'),
        'nothing left pending',
      );
      await assert.rejects(retryDelivery(storage, w.id, log[0].id, OWNER, { now: later }), rejectsWith('not_found', /records the endpoint being disabled/));
      assert.ok(
        log.slice(1).every((d) => d.nextAttemptAt === null || d.attempt === 1),
        'no retry scheduled after disabling',
      );
      assert.deepEqual((await claim(storage, at(10 * 3_600_000))).claimed, []);
      await newPet(storage, later);
      assert.equal(
        (await storage.webhooks.deliveries(w.id, { limit: 1, beforeId: Number.MAX_SAFE_INTEGER }))[0].type,
        'webhook.disabled',
        'a disabled endpoint gets no new deliveries',
      );
      // Enabled again: new events only, failures counted afresh.
      await updateWebhook(storage, w.id, { enabled: true }, OWNER, { now: later });
      const p = await newPet(storage, later);
      const c3 = await claim(storage, later);
      assert.deepEqual(
        c3.claimed.map((a) => a.event?.data),
        [p],
      );
      await finishAttempt(storage, result(c3.claimed[0], c3.token, false, later, { disableIfFailingSince: at(2 * 3_600_000) }));
      assert.equal((await storage.webhooks.get(w.id))!.enabled, true, 'its failures began after the re-enabling');
    });

    test('retry: makes the pending attempt due now, or adds the next attempt; refuses unknown entries, disabling entries, disabled endpoints and purged events', async (t) => {
      const storage = await openTestStorage(t, engine);
      const w = await endpoint(storage);
      await newPet(storage);
      const c1 = await claim(storage, T0);
      await finishAttempt(storage, result(c1.claimed[0], c1.token, false, T0, { retryAt: at(600_000) }));
      const [pending, failed] = await storage.webhooks.deliveries(w.id, { limit: 10, beforeId: Number.MAX_SAFE_INTEGER });
      const now = at(1_000);
      const moved = await retryDelivery(storage, w.id, failed.id, OWNER, { now });
      assert.deepEqual(moved, { ...pending, nextAttemptAt: now.toISOString() });
      const c2 = await claim(storage, now);
      assert.equal(c2.claimed[0].attempt, 2);
      assert.deepEqual(await retryDelivery(storage, w.id, failed.id, OWNER, { now }), { ...moved }, 'in flight: that attempt is the retry');
      await finishAttempt(storage, result(c2.claimed[0], c2.token, true, now));
      const added = await retryDelivery(storage, w.id, failed.id, OWNER, { now: at(2_000) });
      assert.equal(added.attempt, 3);
      assert.equal(added.status, 'pending');
      assert.equal(added.eventId, failed.eventId);
      await assert.rejects(retryDelivery(storage, w.id, 99999, OWNER, { now }), rejectsWith('not_found', /delivery 99999/));
      await assert.rejects(retryDelivery(storage, 99999, failed.id, OWNER, { now }), rejectsWith('not_found', /webhook 99999/));
      const other = await endpoint(storage);
      await assert.rejects(retryDelivery(storage, other.id, failed.id, OWNER, { now }), rejectsWith('not_found'), "another endpoint's entry");
      await updateWebhook(storage, w.id, { enabled: false }, OWNER, { now });
      await assert.rejects(retryDelivery(storage, w.id, failed.id, OWNER, { now }), rejectsWith('webhook_disabled'));
      await updateWebhook(storage, w.id, { enabled: true }, OWNER, { now });
      await storage.events.purge(at(1));
      await assert.rejects(retryDelivery(storage, w.id, failed.id, OWNER, { now }), rejectsWith('not_found', /no longer kept/));
    });

    test('an attempt whose event was purged is claimed without its event; purge keeps pending entries', async (t) => {
      const storage = await openTestStorage(t, engine);
      const w = await endpoint(storage);
      await newPet(storage, at(-100_000));
      await storage.events.purge(T0);
      assert.equal(await storage.webhooks.purge(T0), 0, 'pending entries stay');
      const c = await claim(storage, T0);
      assert.equal(c.claimed[0].event, undefined);
      await finishAttempt(storage, result(c.claimed[0], c.token, false, T0, { retryAt: null, error: 'gone' }));
      assert.equal(await storage.webhooks.purge(at(1)), 1);
      assert.deepEqual(await storage.webhooks.deliveries(w.id, { limit: 10, beforeId: Number.MAX_SAFE_INTEGER }), []);
    });

    test('the previous secret signs until previous_secret_until', async (t) => {
      const storage = await openTestStorage(t, engine);
      const w = await endpoint(storage);
      await rotateWebhookSecret(storage, w.id, 'newer', at(1_000), OWNER, { now: T0 });
      await newPet(storage);
      assert.deepEqual((await claim(storage, at(999))).claimed[0].secrets, ['newer', 'sealed-secret']);
      const late = await claim(storage, at(1_000 + 20_000));
      assert.deepEqual(late.claimed[0].secrets, ['newer']);
    });

    test('deleting an endpoint deletes its log; an attempt in flight then records nothing', async (t) => {
      const storage = await openTestStorage(t, engine);
      const w = await endpoint(storage);
      await newPet(storage);
      const c = await claim(storage, T0);
      await deleteWebhook(storage, w.id, OWNER, { now: T0 });
      assert.deepEqual(await finishAttempt(storage, result(c.claimed[0], c.token, false, T0)), { recorded: false, disabled: false });
      assert.deepEqual(await storage.webhooks.deliveries(w.id, { limit: 10, beforeId: Number.MAX_SAFE_INTEGER }), []);
    });

    test('ownerGone disables the endpoint, unless a change gave it another owner since the attempt was claimed', async (t) => {
      const storage = await openTestStorage(t, engine);
      const { info: key } = await createApiKey(storage, 'owner', SCOPES);
      const owned = { keyId: key.id, scopes: SCOPES, owner: false };
      const a = await createWebhook(storage, { url: 'https://a.example.com/', events: null, description: null, secret: 's' }, owned, 16, { now: T0 });
      const b = await createWebhook(storage, { url: 'https://b.example.com/', events: null, description: null, secret: 's' }, owned, 16, { now: T0 });
      await newPet(storage);
      const c = await claim(storage, T0);
      assert.deepEqual(
        c.claimed.map((x) => x.keyId),
        [key.id, key.id],
      );
      await updateWebhook(storage, b.id, { description: 'taken over' }, OWNER, { now: at(1) });
      const gone = (id: number) => result(c.claimed.find((x) => x.webhookId === id)!, c.token, false, at(2), { ownerGone: true, error: 'not sent' });
      assert.deepEqual(await finishAttempt(storage, gone(a.id)), { recorded: true, disabled: true });
      assert.deepEqual(await finishAttempt(storage, gone(b.id)), { recorded: true, disabled: false });
      assert.deepEqual([(await storage.webhooks.get(a.id))?.enabled, (await storage.webhooks.get(b.id))?.enabled], [false, true]);
    });

    test('registrations from two instances at once never pass maxEndpoints together', async (t) => {
      const storages = await openSharedStorages(t, engine, 2);
      const register = (s: Storage) =>
        createWebhook(s, { url: 'https://hooks.example.com/a', events: null, description: null, secret: 's' }, OWNER, 3, { now: T0 }).then(
          () => 'created',
          (err: { code?: string }) => err.code,
        );
      const outcomes = await Promise.all(Array.from({ length: 24 }, (_, i) => register(storages[i % 2])));
      assert.deepEqual(outcomes.filter((o) => o === 'created').length, 3, outcomes.join());
      assert.deepEqual(
        outcomes.filter((o) => o !== 'created'),
        Array<string>(21).fill('webhook_limit_reached'),
      );
      assert.equal((await storages[0].webhooks.list({ limit: 100, afterId: 0 })).length, 3);
    });

    test('two instances claiming at once: every attempt goes to exactly one, one at a time per endpoint', async (t) => {
      const [a, b] = await openSharedStorages(t, engine, 2);
      const w = await endpoint(a);
      for (let i = 0; i < 40; i++) await newPet(a);
      const seen: number[] = [];
      let inFlight = 0;
      const worker = async (s: Storage) => {
        for (let idle = 0; idle < 20; ) {
          const now = new Date();
          const { token, claimed } = await claim(s, now, { perEndpoint: 1, max: 4 });
          if (claimed.length === 0) {
            idle++;
            await new Promise((r) => setTimeout(r, 5));
            continue;
          }
          idle = 0;
          assert.equal(claimed.length, 1, 'one in flight per endpoint');
          inFlight++;
          assert.equal(inFlight, 1, 'never two attempts to the endpoint at once');
          seen.push(Number(claimed[0].event!.id.slice(4)));
          await new Promise((r) => setImmediate(r));
          inFlight--;
          assert.equal((await finishAttempt(s, result(claimed[0], token, true, new Date()))).recorded, true);
        }
      };
      await Promise.all([worker(a), worker(b)]);
      assert.equal(seen.length, 40, 'each attempt once');
      assert.deepEqual(
        seen,
        [...seen].sort((x, y) => x - y),
        'in event-id order',
      );
      assert.equal((await a.webhooks.deliveries(w.id, { limit: 100, beforeId: Number.MAX_SAFE_INTEGER })).filter((d) => d.status === 'succeeded').length, 40);
    });
  });
}
