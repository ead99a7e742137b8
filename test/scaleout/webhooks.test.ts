// Two service processes on one PostgreSQL database deliver webhooks together: with a healthy
// receiver every event reaches every endpoint exactly once, whichever instance sent it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApiKey } from '../../src/keys/key.service.ts';
import { SCOPES } from '../../src/keys/key.types.ts';
import { openPostgres } from '../../src/storage/postgres/postgres.storage.ts';
import { createTestDatabase } from '../helpers/engines.ts';
import { startService } from '../helpers/process.ts';
import { eventually, startReceiver } from '../helpers/receiver.ts';

const PETS = 120;

test(`two instances on one PostgreSQL database: ${PETS} events reach each of two endpoints exactly once`, { timeout: 120_000 }, async (t) => {
  const db = await createTestDatabase();
  t.after(() => db.drop());
  const storage = await openPostgres({ url: db.url, poolSize: 2 }); // migrates, so the services start on a ready schema
  t.after(() => storage.close());
  const { key } = await createApiKey(storage, 'webhooks', SCOPES);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const receiver = await startReceiver(t, () => 200);
  const env = {
    DATABASE_URL: db.url,
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1:*',
    // Several attempts per endpoint in flight, so both instances' claims compete for the same endpoint.
    WEBHOOK_ENDPOINT_CONCURRENCY: '4',
  };
  const instances = await Promise.all([startService(env), startService(env)]);
  t.after(() => Promise.all(instances.map((i) => i.stop())));
  for (const path of ['a', 'b']) {
    const res = await fetch(`${instances[0].base}/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/${path}`, events: ['pet.created'] }),
    });
    assert.equal(res.status, 201);
  }
  const created = await Promise.all(
    Array.from({ length: PETS }, async (_, i) => {
      const res = await fetch(`${instances[i % 2].base}/v1/pets`, { method: 'POST', headers, body: JSON.stringify({ name: `p${i}`, categoryId: 1 }) });
      assert.equal(res.status, 201);
      return (await res.json()) as { id: number };
    }),
  );
  await receiver.waitFor(2 * PETS, 60_000);
  await new Promise((r) => setTimeout(r, 1_000)); // room for any duplicate to show up
  for (const path of ['/a', '/b']) {
    const got = receiver.received.filter((r) => r.path === path);
    const petIds = got.map((r) => JSON.parse(r.body).data.id as number);
    assert.equal(got.length, PETS, `${path}: ${got.length} requests`);
    assert.deepEqual(new Set(petIds), new Set(created.map((p) => p.id)), `${path}: every pet once`);
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, PETS, `${path}: no webhook-id twice`);
  }
  // Any instance delivers: the instances' own counters add up to every attempt, each one a success.
  const succeeded = await Promise.all(
    instances.map(async (i) => {
      const text = await (await fetch(`${i.base}/metrics`)).text();
      return Number(/^petstore_webhook_delivery_attempts_total\{outcome="succeeded"\} (\d+)$/m.exec(text)?.[1]);
    }),
  );
  t.diagnostic(`attempts per instance: ${succeeded.join(' + ')}`);
  assert.equal(succeeded[0] + succeeded[1], 2 * PETS);
  await eventually(
    async () => (/^petstore_webhook_oldest_pending_seconds 0$/m.test(await (await fetch(`${instances[0].base}/metrics`)).text()) ? true : undefined),
    5_000,
  );
});
