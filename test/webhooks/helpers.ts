// Shared set-up of the webhook tests: the real app with short schedules, a receiver, and calls.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
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
