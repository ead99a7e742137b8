// Shared set-up of the webhook tests: the real app with short schedules, a receiver, and calls.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { Clock } from '../../src/clock.ts';
import type { Delivery, WebhookWithSecret } from '../../src/webhooks/webhook.schemas.ts';
import { buildTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import type { Engine } from '../helpers/engines.ts';
import { startReceiver, type Answer, type Receiver, type Received } from '../helpers/receiver.ts';

/** Receivers listen on 127.0.0.1 (any port) over http: allowed here only, as WEBHOOK_ALLOWED_HOSTS documents. */
export const TEST_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1:*',
  WEBHOOK_RETRY_SCHEDULE_MS: '0,50,100',
  WEBHOOK_TIMEOUT_MS: '500',
  RATE_LIMIT_PER_MINUTE: '0',
};

export interface WebhookTest extends TestApp {
  readonly receiver: Receiver;
  register(body?: object): Promise<WebhookWithSecret>;
  createPet(name?: string): Promise<{ id: number; name: string }>;
  deliveries(webhookId: number): Promise<Delivery[]>;
}

export async function webhookTest(
  t: TestContext,
  engine: Engine,
  options: { env?: Record<string, string>; answer?: (r: Received, n: number) => Answer } & Omit<TestAppOptions, 'env' | 'engine'> = {},
): Promise<WebhookTest> {
  const receiver = await startReceiver(t, options.answer);
  const app = await buildTestApp(t, {
    ...options,
    engine,
    env: { ...TEST_ENV, ...options.env },
    webhooks: { pollMs: 10, random: () => 0.5, ...options.webhooks },
  });
  const { auth } = app;
  return {
    ...app,
    receiver,
    async register(body = {}) {
      const res = await app.app.inject({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: receiver.url, ...body } });
      assert.equal(res.statusCode, 201, res.body);
      return res.json();
    },
    async createPet(name = 'Rex') {
      const res = await app.app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name, categoryId: 1 } });
      assert.equal(res.statusCode, 201, res.body);
      return res.json();
    },
    async deliveries(webhookId) {
      const res = await app.app.inject({ method: 'GET', url: `/v1/webhooks/${webhookId}/deliveries?limit=100`, headers: auth });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    },
  };
}

/**
 * The app's clock for tests that wait on a retry schedule: real time plus an offset the test moves,
 * so a retry due in minutes is made as soon as the test moves the clock past it, never earlier, and
 * nothing depends on how fast a loaded machine runs. `looks(n)` resolves once the app has read the
 * clock `n` more times; the dispatcher reads it once per poll, so while no request is being served
 * and no attempt is in flight it means "the dispatcher has looked n more times" (what a test waits
 * for before asserting that nothing was sent), without a fixed sleep.
 */
export function movableClock(): Clock & { moveTo(at: Date): void; looks(n: number): Promise<void> } {
  let offset = 0;
  let reads = 0;
  const waiters = new Set<() => void>();
  return {
    now() {
      reads++;
      for (const w of waiters) w();
      return new Date(Date.now() + offset);
    },
    moveTo(at) {
      offset = Math.max(offset, at.getTime() - Date.now());
    },
    looks(n) {
      const until = reads + n;
      return new Promise((resolve) => {
        const check = () => {
          if (reads < until) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
  };
}
