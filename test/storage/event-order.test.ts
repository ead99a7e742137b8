// The feed in commit order without a lock between writers (docs/events.md): a reader paging the
// feed while other instances write never passes an event that appears later behind its position.
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { eventSequence } from '../../src/events/event.schemas.ts';
import { withoutEvents, write } from '../../src/events/event.outbox.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { ENGINES, feedSettled, openSharedStorages, openTestStorage } from '../helpers/engines.ts';

const NOW = new Date('2026-07-01T10:00:00.000Z');

/** One write recording `count` events; `pause` runs inside its transaction, after the events are inserted. */
function record(storage: Storage, label: string, count = 1, pause: () => Promise<unknown> = turn): Promise<null> {
  return write(storage, { now: NOW }, async (tx) => {
    const events = Array.from({ length: count }, (_, i) => ({ type: 'pet.created' as const, data: { label, i } }));
    await tx.events.publish(events, NOW);
    await pause();
    return withoutEvents(null);
  });
}

/** Pages the feed from `after` to its current end; returns the sequences read. */
async function page(storage: Storage, after: number, limit = 7): Promise<number[]> {
  const read: number[] = [];
  for (;;) {
    const items = await storage.events.list({ afterId: read.at(-1) ?? after, limit });
    read.push(...items.map(eventSequence));
    if (items.length < limit) return read;
  }
}

/** The whole feed once every committed event is in it (feedSettled). */
const everything = async (storage: Storage) => {
  await feedSettled(storage);
  return (await storage.events.list({ afterId: 0, limit: 10_000 })).map(eventSequence);
};

for (const engine of ENGINES) {
  describe(`${engine}: event feed order`, () => {
    test('a reader paging while two instances write concurrently never finds an event behind one it has read', async (t) => {
      // SQLite is served by one process (docs/deploy.md): there, four writers on one storage.
      const [a, b] = engine === 'sqlite' ? ((s) => [s, s])(await openTestStorage(t, engine)) : await openSharedStorages(t, engine, 2);
      const writes = 60;
      let writing = true;
      const seen: number[] = [];
      const reader = (async () => {
        while (writing) {
          seen.push(...(await page(b, seen.at(-1) ?? 0)));
          await turn();
        }
      })();
      // Two writers per instance, transactions of 1 to 3 events that yield between their statements.
      const writer = async (storage: Storage, name: string) => {
        for (let i = 0; i < writes; i++) await record(storage, `${name}-${i}`, 1 + (i % 3));
      };
      await Promise.all([writer(a, 'a1'), writer(a, 'a2'), writer(b, 'b1'), writer(b, 'b2')]);
      await feedSettled(a); // every write in the feed: the last page below reads to its end
      writing = false;
      await reader;
      seen.push(...(await page(a, seen.at(-1) ?? 0)));
      const all = await everything(a);
      assert.equal(all.length, 4 * writes * 2, 'every event recorded');
      // Read page by page while the writes ran, the feed is the same sequence as read at the end:
      // an event behind the reader's position would be missing from `seen`, or out of place.
      assert.deepEqual(seen, all);
    });

    if (engine === 'postgres') {
      test('an event whose transaction is still open holds back the events committed after it, and nothing is skipped', async (t) => {
        const [a, b] = await openSharedStorages(t, engine, 2);
        await record(a, 'before');
        const [before] = await everything(b);
        let release!: () => void;
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let inserted!: () => void;
        const insertedYet = new Promise<void>((resolve) => {
          inserted = resolve;
        });
        // `slow` inserts its event first (the smaller id), then waits before committing.
        const slow = record(a, 'slow', 1, async () => {
          inserted();
          await held;
        });
        try {
          await insertedYet;
          await record(b, 'fast');
          // Committed, but behind a transaction still running: not in the feed yet.
          assert.deepEqual(await page(b, before), []);
        } finally {
          release();
          await slow;
        }
        await feedSettled(b);
        const after = await page(b, before);
        assert.equal(after.length, 2);
        const data = (await b.events.list({ afterId: before, limit: 10 })).map((e) => (e.data as unknown as { label: string }).label);
        assert.deepEqual(data, ['slow', 'fast'], 'in the order the transactions began writing, the later commit last');
        assert.deepEqual(await everything(b), [before, ...after]);
        // The after= cursor of either event still works: it is looked up, whatever the ids' order.
        assert.deepEqual(await page(b, after[0]), [after[1]]);
        assert.deepEqual(await page(b, after[1]), []);
      });
    }
  });
}
