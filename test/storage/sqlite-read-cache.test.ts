// Listing pages are cached in the SQLite engine until the database changes. These tests pin the
// invalidation: writes through the service, and commits by any other connection (another
// instance, the CLI), are visible on the very next read.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, test, type TestContext } from 'node:test';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';

function fileStorage(t: TestContext): { storage: Storage; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-cache-'));
  const path = join(dir, 'test.db');
  const storage = openSqlite({ path });
  t.after(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { storage, path };
}

const names = async (storage: Storage, status?: 'available' | 'pending' | 'sold') =>
  (JSON.parse((await storage.pets.listJson!({ limit: 10, afterId: 0, status })).json) as { name: string }[]).map((p) => p.name);

describe('SQLite listing cache', () => {
  test('a pet created through the storage is listed on the next read', async (t) => {
    const { storage } = fileStorage(t);
    await storage.pets.create({ name: 'a', categoryId: 1, status: 'available' });
    assert.deepEqual(await names(storage), ['a']);
    await storage.pets.create({ name: 'b', categoryId: 1, status: 'available' });
    assert.deepEqual(await names(storage), ['a', 'b']);
  });

  test('a placed order moves its pet out of the available listing at once', async (t) => {
    const { storage } = fileStorage(t);
    const pet = await storage.pets.create({ name: 'a', categoryId: 1, status: 'available' });
    assert.deepEqual(await names(storage, 'available'), ['a']);
    await storage.orders.place(pet.id, new Date());
    assert.deepEqual(await names(storage, 'available'), []);
    assert.deepEqual(await names(storage, 'pending'), ['a']);
  });

  test('commits by another connection to the same file are seen on the next read', async (t) => {
    const { storage, path } = fileStorage(t);
    await storage.pets.create({ name: 'a', categoryId: 1, status: 'available' });
    assert.deepEqual(await names(storage), ['a']);
    const other = new DatabaseSync(path);
    t.after(() => other.close());
    other.prepare("UPDATE pets SET name = 'renamed elsewhere'").run();
    assert.deepEqual(await names(storage), ['renamed elsewhere']);
    other.prepare("INSERT INTO pets (name, category_id, status) VALUES ('c', 2, 'sold')").run();
    assert.deepEqual(await names(storage), ['renamed elsewhere', 'c']);
    assert.deepEqual(await names(storage, 'sold'), ['c']);
  });
});
