// Migration 5 on a store that already has data (written by the previous release's schema): the
// inventory starts from the pets there are, categories keep their ids, names and sequence, and
// the foreign keys still hold. On every engine.
import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { describe, test, type TestContext } from 'node:test';
import { readMigrations } from '../../src/storage/migration.ts';
import { migrateSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import { ENGINES } from '../helpers/engines.ts';
import { sqliteAt, upgraded } from '../helpers/upgrade.ts';
import { rejectsWith } from '../helpers/errors.ts';
import { createCategory, removeCategory } from '../../src/categories/category.service.ts';
import { createPet, withdrawPet } from '../../src/pets/pet.service.ts';
import { petRecord } from '../helpers/pets.ts';

// What the previous release wrote: a seventh category, pets in every status, a delivered order.
const DATA = [
  "INSERT INTO categories (name) VALUES ('Horses')",
  "INSERT INTO pets (name, category_id, status) VALUES ('a', 1, 'available'), ('b', 7, 'available'), ('c', 2, 'pending'), ('d', 7, 'sold'), ('e', 3, 'sold')",
  "INSERT INTO orders (pet_id, status, created_at, updated_at) VALUES (4, 'delivered', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
];

// The versions a store may have before 5: the previous release (1–4), or main between the events
// issue and this one (1–4 and 6; the runner applies each missing version, whatever its place).
const BEFORE: Record<string, (version: number) => boolean> = { 'at 1–4': (v) => v <= 4, 'at 1–4 and 6': (v) => v <= 4 || v === 6 };

/** A SQLite file migrated to version 4 and holding DATA, open; deleted when the test ends. */
async function sqliteAtVersion4(t: TestContext): Promise<DatabaseSync> {
  const { db } = await sqliteAt(t, BEFORE['at 1–4']);
  for (const sql of DATA) db.exec(sql);
  return db;
}

for (const engine of ENGINES) {
  describe(`${engine}: migration 5 on existing data`, () => {
    for (const [before, applied] of Object.entries(BEFORE))
      test(`${before}: counts the inventory from the pets there are and keeps the categories, their sequence and their rules`, async (t) => {
        const { storage } = await upgraded(t, engine, applied, async (exec) => {
          for (const sql of DATA) await exec(sql);
        });
        assert.deepEqual(await storage.pets.inventory(), { available: 2, pending: 1, sold: 2, availableValue: {} });
        assert.deepEqual(
          (await storage.pets.list({ limit: 10, categoryId: 7 }).then((page) => page.pets)).map((p) => p.name),
          ['b', 'd'],
        );
        assert.deepEqual((await storage.categories.list()).at(-1), { id: 7, name: 'Horses' });
        assert.equal((await createCategory(storage, 'Donkeys', { now: new Date() })).id, 8, 'the id sequence continues');
        await assert.rejects(createCategory(storage, 'HORSES', { now: new Date() }), rejectsWith('category_exists'));
        await assert.rejects(removeCategory(storage, 7, { now: new Date() }), rejectsWith('category_in_use'));
        assert.equal((await storage.orders.get(1))?.petId, 4);
        // The triggers keep counting from there.
        await createPet(storage, petRecord({ name: 'f', categoryId: 8, status: 'pending' }), { now: new Date() });
        await withdrawPet(storage, 1, { now: new Date() });
        assert.deepEqual(await storage.pets.inventory(), { available: 1, pending: 2, sold: 2, availableValue: {} });
      });
  });
}

describe('sqlite: migration 5 rebuilds categories', () => {
  test('leaves foreign keys enforced, and the pets still pointing at their categories', async (t) => {
    const db = await sqliteAtVersion4(t);
    assert.deepEqual(
      migrateSqlite(
        db,
        readMigrations('sqlite').filter((m) => m.version <= 5),
      ),
      [5],
    );
    assert.equal((db.prepare('PRAGMA foreign_keys').get() as { foreign_keys: number }).foreign_keys, 1);
    assert.deepEqual(db.prepare('PRAGMA foreign_key_check').all(), []);
    assert.throws(() => db.exec("INSERT INTO pets (name, category_id, status) VALUES ('x', 99, 'available')"), /FOREIGN KEY constraint failed/);
    assert.match(String((db.prepare("SELECT sql FROM sqlite_master WHERE name = 'pets'").get() as { sql: string }).sql), /REFERENCES categories \(id\)/);
    db.close();
  });
});

describe('sqlite: a migration that rebuilds tables', () => {
  test('is refused, and rolled back, when it leaves a foreign key broken; foreign keys are enforced again after it', async (t) => {
    const db = await sqliteAtVersion4(t);
    const breaking = {
      version: 99,
      name: 'drops the categories the pets name',
      rebuildsTables: true,
      sql: 'CREATE TABLE categories_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT; DROP TABLE categories; ALTER TABLE categories_new RENAME TO categories;',
    };
    assert.throws(() => migrateSqlite(db, [breaking]), /migration 99 breaks foreign keys/);
    assert.equal(db.prepare('SELECT count(*) AS n FROM categories').get()?.n, 7, 'rolled back: the categories are all there');
    assert.equal(db.prepare('SELECT 1 FROM schema_migrations WHERE version = 99').get(), undefined);
    assert.equal((db.prepare('PRAGMA foreign_keys').get() as { foreign_keys: number }).foreign_keys, 1);
    db.close();
  });
});
