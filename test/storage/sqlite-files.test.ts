// The SQLite files hold every secret at rest (issue 34, item 4): whatever the umask, a new data
// folder is 0700 and the database, -wal and -shm files 0600; existing files others can read are reported.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { exposedFiles } from '../../src/storage/sqlite/sqlite.files.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';

const mode = (file: string) => statSync(file).mode & 0o777;

test('a new database is created 0600 (with its -wal and -shm) in a 0700 folder under umask 022; 0644 files are reported', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'petstore-files-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const previous = process.umask(0o022);
  t.after(() => process.umask(previous));
  const path = join(root, 'data', 'petstore.db');
  const storage = openSqlite({ path });
  try {
    await storage.secret('webhook-secret-key'); // a write: the WAL is in use
    assert.equal(mode(join(root, 'data')).toString(8), '700');
    for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(mode(file).toString(8), '600', file);
    assert.deepEqual(exposedFiles(path), []);
    chmodSync(path, 0o644);
    assert.deepEqual(exposedFiles(path), [path]);
  } finally {
    await storage.close();
  }
  assert.deepEqual(exposedFiles(':memory:'), []);
});
