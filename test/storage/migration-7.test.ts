// Migration 7 on endpoints the previous release registered (space-separated `events`, NULL = every
// type): the API shows them as before, and the outbox delivers to them by the new relation — while
// the column the previous release reads stays current. On every engine.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { createPet } from '../../src/pets/pet.service.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { updateWebhook } from '../../src/webhooks/webhook.service.ts';
import { ENGINES, type Engine } from '../helpers/engines.ts';
import { upgraded } from '../helpers/upgrade.ts';
import { SCOPES } from '../../src/keys/key.types.ts';
import { petRecord } from '../helpers/pets.ts';

/** Endpoints made here belong to no key (as a bootstrap key's) and may subscribe to anything. */
const OWNER = { keyId: null, scopes: SCOPES, owner: true };

const AT = '2026-01-01T00:00:00.000Z';
const endpoint = (url: string, events: string | null, enabled: boolean) => [url, events, enabled, AT] as const;
// What the previous release wrote: an endpoint for every type, one listing two types (not in
// alphabetical order), one listing one type, one disabled.
const ENDPOINTS = [
  endpoint('https://a.example.com/', null, true),
  endpoint('https://b.example.com/', 'pet.created order.placed', true),
  endpoint('https://c.example.com/', 'order.placed', true),
  endpoint('https://d.example.com/', 'pet.created', false),
];
const INSERT = "INSERT INTO webhooks (url, events, description, enabled, secret, created_at, updated_at) VALUES ($1, $2, NULL, $3, 'sealed', $4, $4)";

/** A database at version 6 holding ENDPOINTS, then opened by the engine (which applies 7). */
async function upgradedStore(t: TestContext, engine: Engine): Promise<{ storage: Storage; legacyEvents: () => Promise<(string | null)[]> }> {
  const { storage, read } = await upgraded(
    t,
    engine,
    (v) => v <= 6,
    async (exec) => {
      for (const [url, events, enabled, at] of ENDPOINTS) await exec(INSERT, [url, events, enabled, at]);
    },
  );
  const legacyEvents = async () => (await read<{ events: string | null }>('SELECT events FROM webhooks ORDER BY id')).map((r) => r.events);
  return { storage, legacyEvents };
}

for (const engine of ENGINES) {
  describe(`${engine}: migration 7 on existing endpoints`, () => {
    test('their events read as before, new events are delivered by the relation, and the old column stays current', async (t) => {
      const { storage, legacyEvents } = await upgradedStore(t, engine);
      const listed = await storage.webhooks.list({ limit: 10, afterId: 0 });
      assert.deepEqual(
        listed.map((w) => [w.url, w.events, w.enabled]),
        [
          ['https://a.example.com/', null, true],
          ['https://b.example.com/', ['pet.created', 'order.placed'], true],
          ['https://c.example.com/', ['order.placed'], true],
          ['https://d.example.com/', ['pet.created'], false],
        ],
      );
      await createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status: 'available' }), { now: new Date(AT) });
      const owed = async (id: number) => (await storage.webhooks.deliveries(id, { limit: 10, beforeId: Number.MAX_SAFE_INTEGER })).length;
      assert.deepEqual(await Promise.all(listed.map((w) => owed(w.id))), [1, 1, 0, 0], 'pet.created: to every type and to b only');
      const changed = await updateWebhook(storage, listed[2].id, { events: ['pet.deleted', 'order.placed'] }, OWNER, { now: new Date(AT) });
      assert.deepEqual(changed.events, ['pet.deleted', 'order.placed']);
      assert.deepEqual(await legacyEvents(), [null, 'pet.created order.placed', 'pet.deleted order.placed', 'pet.created']);
    });
  });
}
