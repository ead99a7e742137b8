// Migration 9 on the pets of the release before it: they keep every field they had, get createdAt
// and updatedAt from their events (or the migration's time), and — once indexed at start-up by
// indexUnindexedPets — are found by search and ordered by name like any other. On every engine.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, test, type TestContext } from 'node:test';
import { petListing } from '../../src/pets/pet.listing.ts';
import { indexUnindexedPets } from '../../src/pets/pet.service.ts';
import { POSTGRES_MIGRATIONS } from '../../src/storage/postgres/migrations.ts';
import { PgDb } from '../../src/storage/postgres/postgres.db.ts';
import { migratePostgres, openPostgres } from '../../src/storage/postgres/postgres.storage.ts';
import { SQLITE_MIGRATIONS } from '../../src/storage/sqlite/migrations.ts';
import { migrateSqlite, openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { createTestDatabase, ENGINES, type Engine } from '../helpers/engines.ts';

// What the previous release wrote: three pets; the first with its creation and a later change in
// the feed, the second with only a change left (its creation purged), the third with nothing.
const DATA = [
  "INSERT INTO pets (name, category_id, status) VALUES ('Émile', 1, 'available'), ('bella', 2, 'sold'), ('Zed', 1, 'available')",
  `INSERT INTO events (type, data, created_at) VALUES
     ('pet.created', '{"id":1,"name":"Émile","categoryId":1,"status":"available"}', '2026-01-01T00:00:00.000Z'),
     ('pet.updated', '{"id":1,"name":"Émile","categoryId":1,"status":"available"}', '2026-02-01T00:00:00.000Z'),
     ('pet.updated', '{"id":2,"name":"bella","categoryId":2,"status":"sold"}', '2026-03-01T00:00:00.000Z')`,
];

async function upgraded(t: TestContext, engine: Engine): Promise<Storage> {
  const before = (m: { version: number }) => m.version < 9;
  if (engine === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-m9-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'p.db');
    const db = new DatabaseSync(path, { enableForeignKeyConstraints: true });
    migrateSqlite(db, SQLITE_MIGRATIONS.filter(before));
    for (const sql of DATA) db.exec(sql);
    db.close();
    const storage = openSqlite({ path });
    t.after(() => storage.close());
    return storage;
  }
  const target = await createTestDatabase();
  t.after(() => target.drop());
  const db = new PgDb({ url: target.url, poolSize: 1 });
  await migratePostgres(db, POSTGRES_MIGRATIONS.filter(before));
  for (const sql of DATA) await db.query(sql);
  await db.close();
  const storage = await openPostgres({ url: target.url, poolSize: 2 });
  t.after(() => storage.close());
  return storage;
}

for (const engine of ENGINES) {
  describe(`${engine}: migration 9 on existing pets`, () => {
    test('timestamps from the events; searchable and sortable by name once indexed at start-up', async (t) => {
      const migratedFrom = Date.now();
      const storage = await upgraded(t, engine);
      const [emile, bella, zed] = (await storage.pets.list({ limit: 10 }))!;
      assert.deepEqual(
        [emile, bella].map((p) => [p.name, p.tags, p.createdAt, p.updatedAt, 'price' in p, 'description' in p]),
        [
          ['Émile', [], '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z', false, false],
          ['bella', [], '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z', false, false],
        ],
      );
      assert.ok(Date.parse(zed.createdAt) >= migratedFrom - 1000 && zed.updatedAt === zed.createdAt, 'no event: the time of the migration');

      const search = (q: string) => storage.pets.list({ ...petListing({ q }).query, limit: 10 }).then((ps) => ps.map((p) => p.name));
      assert.deepEqual(await search('emile'), [], 'not indexed yet');
      assert.equal(await indexUnindexedPets(storage, 2), 3);
      assert.equal(await indexUnindexedPets(storage), 0, 'nothing left');
      assert.deepEqual(await search('emile'), ['Émile']);
      const byName = await storage.pets.list({ ...petListing({ sort: 'name' }).query, limit: 10 });
      assert.deepEqual(
        byName.map((p) => p.name),
        ['bella', 'Émile', 'Zed'],
      );
      assert.deepEqual(await storage.pets.inventory(), { available: 2, pending: 0, sold: 1, availableValue: {} });
    });
  });
}
