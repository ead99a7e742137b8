// Migration 11 on keys the previous release made (no maker recorded): they become top-level keys;
// the first-run key (the first key, named "first-run") becomes the owner key, which manages every
// key; the tree works from there. On every engine.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { createApiKey, hashKey, revokeApiKey } from '../../src/keys/key.service.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { ENGINES, type Engine } from '../helpers/engines.ts';
import { upgraded } from '../helpers/upgrade.ts';

const AT = '2026-01-01T00:00:00.000Z';
// What the previous release wrote: the first-run key, a key it made over the API, and a later key
// that happens to be named "first-run" too.
const KEYS = [
  ['first-run', 'pst_aaaa', hashKey('a'), 'pets:read pets:write orders:read orders:write categories:write events:read keys:admin webhooks:admin'],
  ['staff', 'pst_bbbb', hashKey('b'), 'keys:admin pets:read'],
  ['first-run', 'pst_cccc', hashKey('c'), 'pets:read'],
] as const;
const INSERT = 'INSERT INTO api_keys (name, prefix, hash, scopes, created_at) VALUES ($1, $2, $3, $4, $5)';

/** A database at the version before 11 holding KEYS, then opened by the engine (which applies 11). */
async function upgradedStore(t: TestContext, engine: Engine): Promise<Storage> {
  const { storage } = await upgraded(
    t,
    engine,
    (v) => v < 11,
    async (exec) => {
      for (const k of KEYS) await exec(INSERT, [...k, AT]);
    },
  );
  return storage;
}

for (const engine of ENGINES) {
  describe(`${engine}: migration 11 on existing keys`, () => {
    test('they become top-level keys, the first-run key the owner key; keys made from then on record their maker', async (t) => {
      const storage = await upgradedStore(t, engine);
      const keys = await storage.apiKeys.list({ limit: 10, afterId: 0 });
      assert.deepEqual(
        keys.map((k) => [k.name, k.parentId, k.owner]),
        [
          ['first-run', null, true],
          ['staff', null, false],
          ['first-run', null, false],
        ],
      );
      assert.equal((await storage.apiKeys.findByHash(hashKey('a')))?.owner, true, 'authentication sees the owner');
      const staff = keys[1];
      const child = (await createApiKey(storage, 'child', ['pets:read'], { parentId: staff.id })).info;
      assert.equal(child.parentId, staff.id);
      assert.equal(await revokeApiKey(storage, staff.id, { now: new Date() }), true);
      assert.deepEqual(
        (await storage.apiKeys.list({ limit: 10, afterId: 0 })).map((k) => [k.name, k.revokedAt === null]),
        [
          ['first-run', true],
          ['staff', false],
          ['first-run', true],
          ['child', false],
        ],
      );
    });
  });
}
