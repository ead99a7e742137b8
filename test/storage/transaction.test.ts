// Storage.transaction, the one write path, on every engine: what a workflow can rely on whatever
// runs beside it. (The domain workflows over it are in contract*.test.ts and webhooks.test.ts.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pet } from '../../src/pets/pet.schemas.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { ENGINES, feedSettled, openTestStorage } from '../helpers/engines.ts';
import { warmUp } from '../helpers/storage.ts';
import { savePet } from '../../src/pets/pet.service.ts';
import { petRecord } from '../helpers/pets.ts';

const rex = { name: 'Rex', categoryId: 1, status: 'available' } as const;
const insertPet = (storage: Storage, name: string) => storage.transaction(async (tx) => (await tx.pets.insert(petRecord({ ...rex, name })))!);

for (const engine of ENGINES) {
  describe(`${engine} storage: transactions`, () => {
    test('a workflow that throws after writing leaves nothing; the workflows started beside it commit', async (t) => {
      const storage = await openTestStorage(t, engine);
      const results = await Promise.allSettled([
        insertPet(storage, 'a'),
        storage.transaction(async (tx) => {
          await tx.pets.insert(petRecord({ ...rex, name: 'b' }));
          await tx.events.publish([{ type: 'pet.created', data: { name: 'b' } }], new Date());
          throw new Error('refused after two writes');
        }),
        insertPet(storage, 'c'),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual((await storage.pets.list({ limit: 10 }).then((page) => page.pets)).map((p) => p.name).sort(), ['a', 'c']);
      await feedSettled(storage); // an event of 'a' or 'c' would be there: a refused one must not
      assert.deepEqual(await storage.events.list({ limit: 10, afterId: 0 }), []);
    });

    test('read, await, write through a lock: 20 workflows at once lose no update', async (t) => {
      const storage = await openTestStorage(t, engine);
      const pet = await insertPet(storage, '0');
      await warmUp(storage);
      await Promise.all(
        Array.from({ length: 20 }, () =>
          storage.transaction(async (tx) => {
            const current = (await tx.pets.lock(pet.id))!;
            await new Promise((resolve) => setImmediate(resolve)); // another turn of the loop between read and write
            return savePet(tx, current, { ...current, name: String(Number(current.name) + 1) }, new Date());
          }),
        ),
      );
      assert.equal((await storage.pets.get(pet.id))?.name, '20');
    });

    test('a read made while a workflow is half-way sees none of its writes, before or after they are rolled back, and caches none', async (t) => {
      const storage = await openTestStorage(t, engine);
      const before = await insertPet(storage, 'before');
      let during: Promise<[Pet | undefined, Pet[]]> | undefined;
      await assert.rejects(
        storage.transaction(async (tx) => {
          const ghost = (await tx.pets.insert(petRecord({ ...rex, name: 'ghost' })))!;
          await savePet(tx, before, { ...before, name: 'changed' }, new Date());
          // What another request's continuation does while this workflow awaits: read.
          during = Promise.all([storage.pets.get(ghost.id), storage.pets.list({ limit: 10 }).then((page) => page.pets)]);
          for (let i = 0; i < 10; i++) await null;
          await new Promise((resolve) => setImmediate(resolve));
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      const [ghost, listed] = await during!;
      assert.equal(ghost, undefined, 'the pet not yet committed is not found');
      assert.deepEqual(listed, [before], 'nor listed, and the other pet is read as committed');
      assert.deepEqual(await storage.pets.list({ limit: 10 }).then((page) => page.pets), [before], 'and the listing cached meanwhile holds neither');
      assert.deepEqual(await storage.pets.get(before.id), before);
    });

    test('a read made while a workflow is half-way answers after it, with its writes once they are committed', async (t) => {
      const storage = await openTestStorage(t, engine);
      const order: string[] = [];
      let during: Promise<Pet[]> | undefined;
      const created = await storage.transaction(async (tx) => {
        const pet = (await tx.pets.insert(petRecord({ ...rex, name: 'new' })))!;
        during = storage.pets
          .list({ limit: 10 })
          .then((page) => page.pets)
          .finally(() => order.push('read'));
        await new Promise((resolve) => setImmediate(resolve));
        order.push('workflow');
        return pet;
      });
      const seen = await during!;
      // SQLite: the read waited for the batch. PostgreSQL: it read committed rows on another connection.
      if (engine === 'sqlite') {
        assert.deepEqual(order, ['workflow', 'read']);
        assert.deepEqual(seen, [created]);
      } else assert.deepEqual(seen, order[0] === 'read' ? [] : [created]);
      assert.deepEqual(await storage.pets.list({ limit: 10 }).then((page) => page.pets), [created]);
    });

    test('a category name already taken: insert and rename answer undefined, and the transaction goes on', async (t) => {
      const storage = await openTestStorage(t, engine);
      const horses = await storage.transaction(async (tx) => {
        assert.equal(await tx.categories.insert('dogs'), undefined);
        assert.equal(await tx.categories.rename(2, 'DOGS'), undefined);
        return (await tx.categories.insert('Horses'))!;
      });
      assert.deepEqual(await storage.categories.get(horses.id), horses);
      assert.deepEqual(await storage.categories.get(2), { id: 2, name: 'Cats' });
    });

    test('locks and reads answer undefined for a missing row; published events get ascending ids in the order given', async (t) => {
      const storage = await openTestStorage(t, engine);
      const at = new Date('2026-07-01T10:00:00.000Z');
      await storage.transaction(async (tx) => {
        assert.equal(await tx.pets.lock(999), undefined);
        assert.equal(await tx.orders.lock(999), undefined);
        assert.equal(await tx.categories.lock(999, 'remove'), undefined);
        assert.equal(await tx.apiKeys.lock(999), undefined);
        assert.equal(await tx.webhooks.lock(999), undefined);
        assert.equal(await tx.deliveries.get(1, 999), undefined);
        assert.equal(await tx.categories.keepLive(999), false);
        assert.equal(await tx.events.typeOf(1), undefined);
        assert.deepEqual(await tx.apiKeys.ancestors(999), []);
        await tx.events.publish(
          [
            { type: 'order.placed', data: { id: 1 } },
            { type: 'pet.updated', data: { id: 2 } },
          ],
          at,
        );
      });
      await feedSettled(storage);
      const events = await storage.events.list({ limit: 10, afterId: 0 });
      assert.deepEqual(
        events.map((e) => [e.type, e.data, e.createdAt]),
        [
          ['order.placed', { id: 1 }, at.toISOString()],
          ['pet.updated', { id: 2 }, at.toISOString()],
        ],
      );
      assert.ok(Number(events[0].id.slice(4)) < Number(events[1].id.slice(4)));
      await storage.transaction(async (tx) => assert.equal(await tx.events.typeOf(Number(events[0].id.slice(4))), 'order.placed'));
      // A reader that may read pet.* only: the list of types is applied by the query.
      const petsOnly = await storage.events.list({ limit: 10, afterId: 0, types: ['pet.updated', 'pet.created'] });
      assert.deepEqual(
        petsOnly.map((e) => e.type),
        ['pet.updated'],
      );
      const after = await storage.events.list({ limit: 10, afterId: Number(events[0].id.slice(4)), types: ['order.placed'] });
      assert.deepEqual(after, []);
      const unknownAfter = await storage.events.list({ limit: 10, afterId: 999_999, types: ['order.placed'] });
      assert.deepEqual(unknownAfter, []);
      assert.deepEqual((await storage.events.list({ limit: 10, afterId: 0, types: [] })).length, 0);
    });
  });
}
