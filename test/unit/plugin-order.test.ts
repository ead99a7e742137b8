import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { edgePlugin } from '../../src/http/edge/edge.ts';
import { requestIdPlugin } from '../../src/http/edge/request-id.ts';
import { corsPlugin } from '../../src/http/policies/cors.ts';
import { idempotencyPlugin } from '../../src/http/policies/idempotency.ts';
import type { IdempotencyRepository } from '../../src/events/idempotency.store.ts';

/** Registers plugins on a bare instance and starts it; rejects with Fastify's complaint. */
async function boot(register: (app: FastifyInstance) => Promise<void>): Promise<void> {
  const app = Fastify();
  try {
    await register(app);
    await app.ready();
  } finally {
    await app.close();
  }
}

const notRegistered = (dependency: string) => (err: unknown) => {
  assert.equal((err as { code?: string }).code, 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED');
  assert.match((err as Error).message, new RegExp(`'${dependency}'`));
  return true;
};

test('a plugin registered before one it must follow stops the app from starting', async () => {
  await assert.rejects(
    boot(async (app) => {
      await app.register(edgePlugin);
    }),
    notRegistered('request-id'),
  );
  await assert.rejects(
    boot(async (app) => {
      await app.register(corsPlugin, { origins: [] });
    }),
    notRegistered('auth'),
  );
  await assert.rejects(
    boot(async (app) => {
      await app.register(idempotencyPlugin, { repo: {} as IdempotencyRepository, clock: { now: () => new Date(0) } });
    }),
    notRegistered('auth'),
  );
  await boot(async (app) => {
    await app.register(requestIdPlugin);
    await app.register(edgePlugin);
  });
});
