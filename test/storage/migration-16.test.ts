// Migration 16 on a feed written before it: each pet.*, pet.health.* and order.* event gets the
// animal it concerns from its data, so an animal's history (EventRepository.list with petId)
// holds its events from before the upgrade too; a category's event belongs to none. On every engine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ENGINES } from '../helpers/engines.ts';
import { upgraded } from '../helpers/upgrade.ts';

const AT = '2026-01-01T00:00:00.000Z';
/** The feed as the release before wrote it: [type, data]. */
const FEED: readonly [string, object][] = [
  ['pet.created', { id: 7, name: 'Rex' }],
  ['category.created', { id: 7, name: 'Ponies' }],
  ['order.placed', { id: 3, petId: 7, status: 'placed' }],
  ['pet.health.recorded', { id: 9, petId: 7, kind: 'exam' }],
  ['pet.created', { id: 8, name: 'Tom' }],
  ['pet.deleted', { id: 7 }],
];

for (const engine of ENGINES) {
  describe(`${engine}: migration 16 on an existing feed`, () => {
    test("each event of an animal is found in its history; a category's in none", async (t) => {
      const { storage } = await upgraded(
        t,
        engine,
        (v) => v < 16,
        async (exec) => {
          for (const [type, data] of FEED) await exec('INSERT INTO events (type, data, created_at) VALUES ($1, $2, $3)', [type, JSON.stringify(data), AT]);
        },
      );
      const types = async (petId: number) => (await storage.events.list({ limit: 10, afterId: 0, petId })).map((e) => e.type);
      assert.deepEqual(await types(7), ['pet.created', 'order.placed', 'pet.health.recorded', 'pet.deleted']);
      assert.deepEqual(await types(8), ['pet.created']);
      assert.equal((await storage.events.list({ limit: 10, afterId: 0 })).length, FEED.length);
    });
  });
}
