import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, test, type TestContext } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { GroupCommit } from '../../src/storage/sqlite/sqlite.group-commit.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import { createPet } from '../../src/pets/pet.service.ts';
import { petRecord } from '../helpers/pets.ts';

function tempDb(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-gc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'test.db');
}

describe('SQLite group commit (the write path)', () => {
  test('concurrent creates each get their own id and are visible to another connection once resolved', async (t) => {
    const path = tempDb(t);
    const storage = openSqlite({ path });
    t.after(() => storage.close());
    const pets = await Promise.all(
      Array.from({ length: 25 }, (_, i) => createPet(storage, petRecord({ name: `P${i}`, categoryId: 1, status: 'available' }), { now: new Date() })),
    );
    assert.deepEqual(
      pets.map((p) => p.id),
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
    // A separate connection reads only committed data: every acknowledged create is there.
    const other = new DatabaseSync(path, { readOnly: true });
    t.after(() => other.close());
    assert.equal((other.prepare('SELECT count(*) AS n FROM pets').get() as { n: number }).n, 25);
  });

  test('an unknown category fails only its own create; the others in the same batch commit', async (t) => {
    const storage = openSqlite({ path: tempDb(t) });
    t.after(() => storage.close());
    const results = await Promise.allSettled([
      createPet(storage, petRecord({ name: 'a', categoryId: 1, status: 'available' }), { now: new Date() }),
      createPet(storage, petRecord({ name: 'b', categoryId: 999, status: 'available' }), { now: new Date() }),
      createPet(storage, petRecord({ name: 'c', categoryId: 2, status: 'sold' }), { now: new Date() }),
    ]);
    assert.equal(results[0].status, 'fulfilled');
    assert.equal(results[2].status, 'fulfilled');
    assert.equal(results[1].status, 'rejected');
    assert.ok(results[1].status === 'rejected' && results[1].reason instanceof AppError && results[1].reason.code === 'unknown_category');
    const listed = await storage.pets.list({ limit: 10 }).then((page) => page.pets);
    assert.deepEqual(
      listed.map((p) => p.name),
      ['a', 'c'],
    );
  });

  test('writes queued in one turn share one transaction: none is visible elsewhere before the common COMMIT', async (t) => {
    const path = tempDb(t);
    const db = new DatabaseSync(path);
    t.after(() => db.close());
    db.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)');
    const other = new DatabaseSync(path, { readOnly: true });
    t.after(() => other.close());
    const count = () => (other.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
    const group = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
    const seenElsewhere = await Promise.all(
      [1, 2, 3].map((x) =>
        group.run(async () => {
          insert.run(x);
          return count();
        }),
      ),
    );
    assert.deepEqual(seenElsewhere, [0, 0, 0]);
    assert.equal(db.isTransaction, false, 'committed, not left open');
    assert.equal(count(), 3);
  });

  test('a write of several statements that throws half-way is undone alone (its savepoint); the others commit', async (t) => {
    const db = new DatabaseSync(':memory:');
    t.after(() => db.close());
    db.exec('CREATE TABLE t (x INTEGER)');
    const group = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
    const results = await Promise.allSettled([
      group.run(async () => insert.run(1)),
      group.run(async () => {
        insert.run(2);
        insert.run(3);
        throw new AppError('pet_not_available', 'refused after two statements');
      }),
      group.run(async () => insert.run(4)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(
      db
        .prepare('SELECT x FROM t ORDER BY x')
        .all()
        .map((r) => r.x),
      [1, 4],
    );
    assert.equal(db.isTransaction, false);
  });

  test('a failed COMMIT rejects every write of the batch instead of acknowledging it', async (t) => {
    const db = new DatabaseSync(':memory:');
    t.after(() => db.close());
    // A deferred foreign key is checked at COMMIT, so the statement succeeds and the commit fails.
    db.exec('PRAGMA foreign_keys = ON; CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (p INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)');
    const group = new GroupCommit(db);
    const ok = db.prepare('INSERT INTO p (id) VALUES (?)');
    const dangling = db.prepare('INSERT INTO c (p) VALUES (?)');
    const results = await Promise.allSettled([group.run(async () => ok.run(1)), group.run(async () => dangling.run(42))]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    assert.equal(db.isTransaction, false);
    assert.equal((db.prepare('SELECT count(*) AS n FROM p').get() as { n: number }).n, 0, 'nothing of the failed batch persisted');
  });
});
