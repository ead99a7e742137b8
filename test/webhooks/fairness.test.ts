// Issue 26, item 5: a store registers at most WEBHOOK_MAX_ENDPOINTS endpoints, and delivery is fair
// per destination host: endpoints on a slow host hold at most WEBHOOK_HOST_CONCURRENCY of the
// slots, so an endpoint elsewhere gets its first attempt at once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { movableClock, TEST_ENV, webhookTest } from './helpers.ts';

// Both names are this machine; to the dispatcher they are two destinations.
const resolve = async () => [{ address: '127.0.0.1', family: 4 }];

for (const engine of ENGINES) {
  describe(`${engine}: endpoint cap and per-host fairness`, () => {
    test('the endpoint after WEBHOOK_MAX_ENDPOINTS → 409 webhook_limit_reached; deleting one makes room', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine, env: { ...TEST_ENV, WEBHOOK_MAX_ENDPOINTS: '3' } });
      const post = () => app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: 'http://127.0.0.1:9/hooks' } });
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await post()).json().id);
      const refused = await post();
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json().code, 'webhook_limit_reached');
      assert.match(refused.json().message, /this store has 3 webhook endpoints, the most it may register \(WEBHOOK_MAX_ENDPOINTS\)/);
      await app.inject({ method: 'DELETE', url: `/v1/webhooks/${ids[0]}`, headers: auth });
      assert.equal((await post()).statusCode, 201);
      assert.equal((await post()).statusCode, 409);
      // Registrations at once from several instances: test/storage/webhooks.test.ts.
    });

    test("many endpoints on a slow host take at most WEBHOOK_HOST_CONCURRENCY slots: another host's first attempt comes at once", async (t) => {
      const timeoutMs = 10_000;
      const slow = await startReceiver(t, () => 'hang');
      const w = await webhookTest(t, engine, {
        env: { WEBHOOK_CONCURRENCY: '4', WEBHOOK_HOST_CONCURRENCY: '2', WEBHOOK_TIMEOUT_MS: String(timeoutMs), WEBHOOK_RETRY_SCHEDULE_MS: '0' },
        webhooks: { resolve },
      });
      // Registered first, so the claims' order (least recently served, then id) favours them.
      for (let i = 0; i < 8; i++) await w.register({ url: `http://slow.test:${slow.port}/hooks/${i}`, events: ['pet.created'] });
      await w.register({ url: `http://healthy.test:${w.receiver.port}/hooks`, events: ['pet.created'] });
      const started = performance.now();
      await w.createPet();
      // Without the per-host limit the slow host holds every slot until WEBHOOK_TIMEOUT_MS runs out.
      const [healthy] = await w.receiver.waitFor(1, timeoutMs / 2);
      const after = healthy.at - started;
      await slow.waitFor(2, timeoutMs / 2);
      assert.ok(after < timeoutMs / 2, `the healthy endpoint's first attempt came ${Math.round(after)} ms after its event`);
      assert.equal(slow.received.length, 2, 'two attempts in flight to the slow host, no more');
      await slow.close(); // ends the attempts in flight, so that the app stops at once
    });

    test('two names of one address and port are one destination: they share WEBHOOK_HOST_CONCURRENCY (issue 34, item 6)', async (t) => {
      const timeoutMs = 10_000;
      const slow = await startReceiver(t, () => 'hang');
      const clock = movableClock();
      const w = await webhookTest(t, engine, {
        clock,
        env: {
          WEBHOOK_CONCURRENCY: '8',
          WEBHOOK_HOST_CONCURRENCY: '2',
          WEBHOOK_TIMEOUT_MS: String(timeoutMs),
          WEBHOOK_RETRY_SCHEDULE_MS: '0',
          WEBHOOK_ALLOWED_HOSTS: '127.0.0.1:*,alias.test:*',
        },
        webhooks: { resolve },
      });
      for (let i = 0; i < 3; i++) await w.register({ url: `http://alias.test:${slow.port}/hooks/${i}`, events: ['pet.created'] });
      for (let i = 0; i < 3; i++) await w.register({ url: `http://127.0.0.1:${slow.port}/hooks/${i}`, events: ['pet.created'] });
      await w.register({ url: `http://127.0.0.1:${w.receiver.port}/hooks`, events: ['pet.created'] });
      await w.createPet();
      // The healthy endpoint (another port) is served: by then every claim has seen the slow destination.
      await w.receiver.waitFor(1, timeoutMs / 2);
      await slow.waitFor(2, timeoutMs / 2);
      await clock.looks(5); // the dispatcher has looked again and again: nothing more may go
      assert.equal(slow.received.length, 2, 'two attempts in flight to 127.0.0.1:port, whichever name the URL uses');
      await slow.close();
    });
  });
}
