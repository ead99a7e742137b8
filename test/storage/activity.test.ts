// The activity log's storage on every engine (ActivityRepository, ActivityTx, through write()): a
// write's actor on its events and its entries, in the write's transaction; the filters and the
// newest-first keyset; the purge, which leaves the event feed's rows to its own retention.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { actingAs } from '../../src/activity/activity.context.ts';
import type { Actor } from '../../src/activity/activity.schemas.ts';
import { onlyActivity, write } from '../../src/events/event.outbox.ts';
import { createPet, updatePet } from '../../src/pets/pet.service.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { ENGINES, feedSettled, openTestStorage } from '../helpers/engines.ts';
import { petRecord } from '../helpers/pets.ts';

const DAY = 86_400_000;
const T0 = new Date('2026-11-01T09:00:00.000Z');
const ADA: Actor = { type: 'staff', id: 3, name: 'Ada Byrne' };
const TILL: Actor = { type: 'key', id: 7, name: 'till' };

const at = (days: number) => new Date(T0.getTime() + days * DAY);
const newPet = (storage: Storage, actor: Actor, name: string, days = 0) =>
  actingAs(actor, () => createPet(storage, petRecord({ name, categoryId: 1 }), { now: at(days) }));

for (const engine of ENGINES) {
  describe(`${engine} storage: activity log`, () => {
    test("a write's actor goes on its events and its entries; an update's changes too; a write outside a request is the service's", async (t) => {
      const storage = await openTestStorage(t, engine);
      const rex = await newPet(storage, ADA, 'Rex');
      await actingAs(TILL, () => updatePet(storage, rex.id, { name: 'Rexy' }, 'EUR', { now: at(1) }));
      await updatePet(storage, rex.id, { name: 'Rex II' }, 'EUR', { now: at(2) });
      await feedSettled(storage);

      const events = await storage.events.list({ limit: 10, afterId: 0 });
      assert.deepEqual(
        events.map((e) => [e.type, e.actor]),
        [
          ['pet.created', ADA],
          ['pet.updated', TILL],
          ['pet.updated', { type: 'service', id: null, name: 'Pet Store' }],
        ],
      );
      assert.deepEqual((events[1] as { changes?: object }).changes, { name: ['Rex', 'Rexy'] });

      const log = await storage.activity.list({ limit: 10 });
      assert.deepEqual(
        log.map((e) => [e.type, e.resource, e.actor.name, e.changes, e.at]),
        [
          ['pet.updated', `pet:${rex.id}`, 'Pet Store', { name: ['Rexy', 'Rex II'] }, at(2).toISOString()],
          ['pet.updated', `pet:${rex.id}`, 'till', { name: ['Rex', 'Rexy'] }, at(1).toISOString()],
          ['pet.created', `pet:${rex.id}`, 'Ada Byrne', undefined, at(0).toISOString()],
        ],
      );
    });

    test('a write that fails leaves no entry; a write no event describes records its own', async (t) => {
      const storage = await openTestStorage(t, engine);
      await assert.rejects(
        actingAs(ADA, () =>
          write(storage, { now: T0 }, async (tx) => {
            await tx.activity.record(ADA, [{ type: 'key.created', resource: 'key:1' }], T0);
            throw new Error('refused');
          }),
        ),
        /refused/,
      );
      assert.deepEqual(await storage.activity.list({ limit: 10 }), []);
      await actingAs(TILL, () => write(storage, { now: T0 }, async () => onlyActivity(undefined, 'webhook.deleted', 'webhook:4')));
      assert.deepEqual(
        (await storage.activity.list({ limit: 10 })).map((e) => [e.type, e.resource, e.actor]),
        [['webhook.deleted', 'webhook:4', TILL]],
      );
    });

    test('filters by actor, resource, type and time combine; pages go newest first from a position; the purge goes by time only', async (t) => {
      const storage = await openTestStorage(t, engine);
      const rex = await newPet(storage, ADA, 'Rex', 0);
      const nemo = await newPet(storage, TILL, 'Nemo', 1);
      await actingAs(ADA, () => updatePet(storage, nemo.id, { name: 'Nemo II' }, 'EUR', { now: at(2) }));
      const biscuit = await newPet(storage, ADA, 'Biscuit', 3);

      const ids = async (q: Parameters<Storage['activity']['list']>[0]) => (await storage.activity.list(q)).map((e) => `${e.type} ${e.resource}`);
      assert.deepEqual(await ids({ limit: 10, actor: { type: 'staff', id: 3 }, type: 'pet.created' }), [
        `pet.created pet:${biscuit.id}`,
        `pet.created pet:${rex.id}`,
      ]);
      assert.deepEqual(await ids({ limit: 10, resource: `pet:${nemo.id}` }), [`pet.updated pet:${nemo.id}`, `pet.created pet:${nemo.id}`]);
      assert.deepEqual(await ids({ limit: 10, actor: { type: 'key', id: 7 } }), [`pet.created pet:${nemo.id}`]);
      assert.deepEqual(await ids({ limit: 10, actor: { type: 'staff', id: 7 } }), [], 'a person and a key of the same id are two actors');
      assert.deepEqual(await ids({ limit: 10, from: at(1), to: at(3) }), [`pet.updated pet:${nemo.id}`, `pet.created pet:${nemo.id}`]);
      const [newest, second] = await storage.activity.list({ limit: 2 });
      assert.ok(newest.id > second.id);
      assert.deepEqual(await ids({ limit: 10, beforeId: second.id, actor: { type: 'staff', id: 3 } }), [`pet.created pet:${rex.id}`]);

      assert.equal(await storage.activity.purge(at(2)), 2);
      assert.deepEqual(await ids({ limit: 10 }), [`pet.created pet:${biscuit.id}`, `pet.updated pet:${nemo.id}`]);
      await feedSettled(storage);
      assert.equal((await storage.events.list({ limit: 10, afterId: 0 })).length, 4, "the feed's rows are the feed's retention's");
    });
  });
}
