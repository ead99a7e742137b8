// Migration 12 on endpoints registered before it: they have no owner key (and keep working), and
// their destination host is filled in from their URL, so the per-host limit counts them. On every
// engine.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { createPet } from '../../src/pets/pet.service.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { claimAttempts } from '../../src/webhooks/webhook.deliveries.ts';
import { petRecord } from '../helpers/pets.ts';
import { ENGINES, feedSettled, type Engine } from '../helpers/engines.ts';
import { upgraded } from '../helpers/upgrade.ts';

const AT = '2026-01-01T00:00:00.000Z';
// Every type, enabled: as the previous release wrote them. Three destinations.
const URLS = ['https://a.example.com/x', 'https://a.example.com/y?z=1', 'https://a.example.com:8443/', 'http://[2001:db8::1]:8080/p'];
const INSERT =
  "INSERT INTO webhooks (url, events, all_events, description, enabled, secret, created_at, updated_at) VALUES ($1, NULL, $2, NULL, $2, 'sealed', $3, $3)";

/** A database at the version before 12 holding endpoints for URLS, then opened by the engine (which applies 12). */
async function upgradedStore(t: TestContext, engine: Engine): Promise<Storage> {
  const { storage } = await upgraded(
    t,
    engine,
    (v) => v < 12,
    async (exec) => {
      for (const url of URLS) await exec(INSERT, [url, true, AT]);
    },
  );
  return storage;
}

for (const engine of ENGINES) {
  describe(`${engine}: migration 12 on existing endpoints`, () => {
    test('they have no owner key, and their destinations are known to the per-host limit', async (t) => {
      const storage = await upgradedStore(t, engine);
      const listed = await storage.webhooks.list({ limit: 10, afterId: 0 });
      assert.deepEqual(
        listed.map((w) => [w.url, w.keyId]),
        URLS.map((url) => [url, null]),
      );
      const now = new Date(AT);
      await createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status: 'available' }), { now });
      // PostgreSQL leases a delivery once no older transaction in the server is open (docs/events.md).
      await feedSettled(storage);
      const claimed = await claimAttempts(storage, { now, leaseUntil: new Date(now.getTime() + 10_000), token: 't', max: 10, perEndpoint: 10, perHost: 1 });
      assert.deepEqual(
        claimed.map((a) => a.url).sort(),
        ['http://[2001:db8::1]:8080/p', 'https://a.example.com/x', 'https://a.example.com:8443/'],
        'one attempt per destination: the two endpoints of a.example.com share one',
      );
    });
  });
}
