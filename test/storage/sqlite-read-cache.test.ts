// Listing pages, single pets and API keys are cached in the SQLite engine until the database changes. These tests pin the
// invalidation: writes through the service, and commits by any other connection (another
// instance, the CLI), are visible on the very next read.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { channel } from 'node:diagnostics_channel';
import { DatabaseSync } from 'node:sqlite';
import { describe, test, type TestContext } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DatabaseChanges } from '../../src/storage/sqlite/sqlite.read-cache.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { createPet } from '../../src/pets/pet.service.ts';
import { placeOrder } from '../../src/store/order.service.ts';
import { petRecord } from '../helpers/pets.ts';

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
  (await storage.pets.list({ limit: 10, status }).then((page) => page.pets)).map((p) => p.name);

describe('SQLite listing cache', () => {
  test('a pet created through the storage is listed on the next read', async (t) => {
    const { storage } = fileStorage(t);
    await createPet(storage, petRecord({ name: 'a', categoryId: 1, status: 'available' }), { now: new Date() });
    assert.deepEqual(await names(storage), ['a']);
    await createPet(storage, petRecord({ name: 'b', categoryId: 1, status: 'available' }), { now: new Date() });
    assert.deepEqual(await names(storage), ['a', 'b']);
  });

  test('a placed order moves its pet out of the available listing at once', async (t) => {
    const { storage } = fileStorage(t);
    const pet = await createPet(storage, petRecord({ name: 'a', categoryId: 1, status: 'available' }), { now: new Date() });
    assert.deepEqual(await names(storage, 'available'), ['a']);
    await placeOrder(storage, { petId: pet.id }, { now: new Date() });
    assert.deepEqual(await names(storage, 'available'), []);
    assert.deepEqual(await names(storage, 'pending'), ['a']);
  });

  test('commits by another connection to the same file are seen from the next loop turn on', async (t) => {
    const { storage, path } = fileStorage(t);
    await createPet(storage, petRecord({ name: 'a', categoryId: 1, status: 'available' }), { now: new Date() });
    assert.deepEqual(await names(storage), ['a']);
    const other = new DatabaseSync(path);
    t.after(() => other.close());
    other.prepare("UPDATE pets SET name = 'renamed elsewhere'").run();
    await nextTurn();
    assert.deepEqual(await names(storage), ['renamed elsewhere']);
    other.prepare("INSERT INTO pets (name, category_id, status) VALUES ('c', 2, 'sold')").run();
    await nextTurn();
    assert.deepEqual(await names(storage), ['renamed elsewhere', 'c']);
    assert.deepEqual(await names(storage, 'sold'), ['c']);
  });

  test("a single pet read reflects its own writes at once and other connections' from the next loop turn on", async (t) => {
    const { storage, path } = fileStorage(t);
    const pet = await createPet(storage, petRecord({ name: 'a', categoryId: 1, status: 'available' }), { now: new Date() });
    assert.equal((await storage.pets.get(pet.id))?.status, 'available');
    await placeOrder(storage, { petId: pet.id }, { now: new Date() });
    assert.equal((await storage.pets.get(pet.id))?.status, 'pending');
    const other = new DatabaseSync(path);
    t.after(() => other.close());
    other.prepare("UPDATE pets SET name = 'renamed elsewhere'").run();
    await nextTurn();
    assert.equal((await storage.pets.get(pet.id))?.name, 'renamed elsewhere');
    other.prepare('DELETE FROM orders').run();
    other.prepare('DELETE FROM pets').run();
    await nextTurn();
    assert.equal(await storage.pets.get(pet.id), undefined);
  });
});

describe('DatabaseChanges', () => {
  test("own writes show at once; other connections' commits from the next HTTP request or loop turn on", async (t) => {
    const { path } = fileStorage(t);
    const db = new DatabaseSync(path);
    const other = new DatabaseSync(path);
    const changes = new DatabaseChanges(db);
    t.after(() => {
      changes.close();
      db.close();
      other.close();
    });
    const own = changes.ownChanges();
    const version = changes.othersVersion();
    db.prepare("INSERT INTO categories (name) VALUES ('own')").run();
    assert.equal(changes.ownChanges(), own + 1, 'an own write is counted by the next call');
    other.prepare("INSERT INTO categories (name) VALUES ('other')").run();
    // Asked once per loop turn (one read lock)…
    await null;
    assert.equal(changes.othersVersion(), version);
    // …unless an HTTP request arrives (node:http publishes its start on this channel, synchronously,
    // before any handler runs): every request's reads follow a check made after it arrived.
    channel('http.server.request.start').publish({});
    const later = changes.othersVersion();
    assert.notEqual(later, version, 'a commit by another connection is seen by the next request');
    other.prepare("INSERT INTO categories (name) VALUES ('other 2')").run();
    await nextTurn();
    const turned = changes.othersVersion();
    assert.notEqual(turned, later, 'and, without requests, from the next loop turn on');
    assert.equal(changes.othersVersion(), turned, 'no commit since: the same version');
  });
});
