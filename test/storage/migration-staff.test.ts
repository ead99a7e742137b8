// The staff migration on the keys of the previous release: an owner key that manages keys
// (keys:admin) gets staff:read and staff:admin; no other key gains a scope. On every engine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashKey } from '../../src/keys/key.service.ts';
import { readMigrations } from '../../src/storage/migration.ts';
import { ENGINES } from '../helpers/engines.ts';
import { upgraded } from '../helpers/upgrade.ts';

// Found by its name, so that renumbering the migration (a folder's name) changes nothing here.
const STAFF = readMigrations('sqlite').find((m) => m.name === 'staff accounts and sessions')!.version;
const AT = '2026-01-01T00:00:00.000Z';
const INSERT = 'INSERT INTO api_keys (name, prefix, hash, scopes, created_at, owner) VALUES ($1, $2, $3, $4, $5, $6)';
const KEYS = [
  ['first-run', 'pst_aaaa', hashKey('a'), 'pets:read keys:admin webhooks:admin', true],
  ['owner reader', 'pst_bbbb', hashKey('b'), 'pets:read', true],
  ['key admin', 'pst_cccc', hashKey('c'), 'keys:admin', false],
] as const;

for (const engine of ENGINES) {
  describe(`${engine}: the staff migration on existing keys`, () => {
    test('owner keys holding keys:admin get staff:read and staff:admin; other keys keep their scopes', async (t) => {
      const { storage } = await upgraded(
        t,
        engine,
        (v) => v < STAFF,
        async (exec) => {
          for (const [name, prefix, hash, scopes, owner] of KEYS) await exec(INSERT, [name, prefix, hash, scopes, AT, owner]);
        },
      );
      const keys = await storage.apiKeys.list({ limit: 10, afterId: 0 });
      assert.deepEqual(
        keys.map((k) => [k.name, k.scopes]),
        [
          ['first-run', ['pets:read', 'keys:admin', 'webhooks:admin', 'staff:read', 'staff:admin']],
          ['owner reader', ['pets:read']],
          ['key admin', ['keys:admin']],
        ],
      );
      assert.equal(await storage.staff.count(), 0);
    });
  });
}
