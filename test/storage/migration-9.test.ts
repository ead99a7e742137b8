// Migration 9 on the pets of the release before it: they keep every field they had, get createdAt
// and updatedAt from their events (or the migration's time), and — once indexed at start-up by
// indexUnindexedPets — are found by search and ordered by name like any other. On every engine.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { petListing } from '../../src/pets/pet.listing.ts';
import { indexUnindexedPets } from '../../src/pets/pet.service.ts';
import { ENGINES, type Engine } from '../helpers/engines.ts';
import { upgraded, type Upgraded } from '../helpers/upgrade.ts';

// What the previous release wrote: three pets; the first with its creation and a later change in
// the feed, the second with only a change left (its creation purged), the third with nothing.
const DATA = [
  "INSERT INTO pets (name, category_id, status) VALUES ('Émile', 1, 'available'), ('bella', 2, 'sold'), ('Zed', 1, 'available')",
  `INSERT INTO events (type, data, created_at) VALUES
     ('pet.created', '{"id":1,"name":"Émile","categoryId":1,"status":"available"}', '2026-01-01T00:00:00.000Z'),
     ('pet.updated', '{"id":1,"name":"Émile","categoryId":1,"status":"available"}', '2026-02-01T00:00:00.000Z'),
     ('pet.updated', '{"id":2,"name":"bella","categoryId":2,"status":"sold"}', '2026-03-01T00:00:00.000Z')`,
];

/** A store of the release before 9 holding DATA, opened by the engine (which applies 9). */
function upgradedStore(t: TestContext, engine: Engine): Promise<Upgraded> {
  return upgraded(
    t,
    engine,
    (v) => v < 9,
    async (exec) => {
      for (const sql of DATA) await exec(sql);
    },
  );
}

for (const engine of ENGINES) {
  describe(`${engine}: migration 9 on existing pets`, () => {
    test('timestamps from the events; searchable and sortable by name once indexed at start-up', async (t) => {
      const migratedFrom = Date.now();
      const storage = (await upgradedStore(t, engine)).storage;
      const [emile, bella, zed] = (await storage.pets.list({ limit: 10 }).then((page) => page.pets))!;
      assert.deepEqual(
        [emile, bella].map((p) => [p.name, p.tags, p.createdAt, p.updatedAt, 'price' in p, 'description' in p]),
        [
          ['Émile', [], '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z', false, false],
          ['bella', [], '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z', false, false],
        ],
      );
      assert.ok(Date.parse(zed.createdAt) >= migratedFrom - 1000 && zed.updatedAt === zed.createdAt, 'no event: the time of the migration');

      const search = (q: string) =>
        storage.pets
          .list({ ...petListing({ q }).query, limit: 10 })
          .then((page) => page.pets)
          .then((ps) => ps.map((p) => p.name));
      assert.deepEqual(await search('emile'), [], 'not indexed yet');
      assert.equal(await indexUnindexedPets(storage, 2), 3);
      assert.equal(await indexUnindexedPets(storage), 0, 'nothing left');
      assert.deepEqual(await search('emile'), ['Émile']);
      const byName = await storage.pets.list({ ...petListing({ sort: 'name' }).query, limit: 10 }).then((page) => page.pets);
      assert.deepEqual(
        byName.map((p) => p.name),
        ['bella', 'Émile', 'Zed'],
      );
      assert.deepEqual(await storage.pets.inventory(), { available: 2, pending: 0, sold: 1, availableValue: {} });
    });
  });
}
