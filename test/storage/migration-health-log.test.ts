// The health log's migration on the keys of the previous release: an owner key gets health:read where it holds
// pets:read and health:write where it holds pets:write (as the default set of a new key does);
// no other key gains a scope. On every engine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashKey } from '../../src/keys/key.service.ts';
import { readMigrations } from '../../src/storage/migration.ts';
import { ENGINES } from '../helpers/engines.ts';
import { upgraded } from '../helpers/upgrade.ts';

// Found by its name, so that renumbering the migration (a folder's name) changes nothing here.
const HEALTH_LOG = readMigrations('sqlite').find((m) => m.name === 'health log and due list')!.version;
const AT = '2026-01-01T00:00:00.000Z';
const INSERT = 'INSERT INTO api_keys (name, prefix, hash, scopes, created_at, owner) VALUES ($1, $2, $3, $4, $5, $6)';
const KEYS = [
  ['first-run', 'pst_aaaa', hashKey('a'), 'pets:read pets:write orders:read keys:admin', true],
  ['owner reader', 'pst_bbbb', hashKey('b'), 'keys:admin pets:read', true],
  ['owner admin only', 'pst_cccc', hashKey('c'), 'keys:admin', true],
  ['staff', 'pst_dddd', hashKey('d'), 'pets:read pets:write', false],
] as const;

for (const engine of ENGINES) {
  describe(`${engine}: the health log migration on existing keys`, () => {
    test('owner keys get health:read and health:write as they hold pets:read and pets:write; other keys keep their scopes', async (t) => {
      const { storage } = await upgraded(
        t,
        engine,
        (v) => v < HEALTH_LOG,
        async (exec) => {
          for (const [name, prefix, hash, scopes, owner] of KEYS) await exec(INSERT, [name, prefix, hash, scopes, AT, owner]);
        },
      );
      const keys = await storage.apiKeys.list({ limit: 10, afterId: 0 });
      assert.deepEqual(
        keys.map((k) => [k.name, k.scopes]),
        [
          // The upgrade runs every later migration too: 17 gives an owner key holding orders:read customers:read.
          ['first-run', ['pets:read', 'pets:write', 'orders:read', 'keys:admin', 'health:read', 'health:write', 'customers:read']],
          ['owner reader', ['keys:admin', 'pets:read', 'health:read']],
          ['owner admin only', ['keys:admin']],
          ['staff', ['pets:read', 'pets:write']],
        ],
      );
      assert.ok((await storage.apiKeys.findByHash(hashKey('a')))?.scopes.includes('health:write'), 'authentication sees the new scope');
    });
  });
}
