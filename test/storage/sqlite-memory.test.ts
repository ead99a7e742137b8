import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { readMigrations } from '../../src/storage/migration.ts';
import { migrateMemory, migrateSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';

/** Every schema object and every row of every table (FTS shadow tables and sqlite_sequence included). */
function dump(db: DatabaseSync): unknown {
  const objects = db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all();
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
  const rows = Object.fromEntries(tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}"`).all()]));
  // When each migration ran is the one thing a copy does not repeat.
  rows.schema_migrations = (rows.schema_migrations as { applied_at?: string }[]).map(({ applied_at, ...rest }) => rest);
  return { objects, rows };
}

const open = () => new DatabaseSync(':memory:', { enableForeignKeyConstraints: true });

test('a new in-memory database, migrated or copied, is exactly a freshly migrated one', (t) => {
  const fresh = open();
  const first = open();
  const copy = open();
  t.after(() => {
    for (const db of [fresh, first, copy]) db.close();
  });
  migrateSqlite(fresh, readMigrations('sqlite'));
  migrateMemory(first);
  migrateMemory(copy); // the process has migrated one by now: this one is a copy
  assert.deepEqual(dump(first), dump(fresh));
  assert.deepEqual(dump(copy), dump(fresh));
  assert.ok((dump(fresh) as { rows: Record<string, unknown[]> }).rows.categories.length > 0, 'the dump sees the seeded rows');
});

test('copies are separate databases: a write to one is not in another', (t) => {
  const a = open();
  const b = open();
  t.after(() => {
    for (const db of [a, b]) db.close();
  });
  migrateMemory(a);
  migrateMemory(b);
  a.exec("INSERT INTO categories (name) VALUES ('Ferrets')");
  assert.equal(a.prepare("SELECT count(*) AS n FROM categories WHERE name = 'Ferrets'").get()?.n, 1);
  assert.equal(b.prepare("SELECT count(*) AS n FROM categories WHERE name = 'Ferrets'").get()?.n, 0);
  const fresh = open();
  t.after(() => fresh.close());
  migrateSqlite(fresh, readMigrations('sqlite'));
  assert.deepEqual(dump(b), dump(fresh));
});
