// The key delegation tree on every engine (issue 26 item 1): parents recorded, subtrees listed,
// revocation cascading, expiry bounded by the parent's, and revocation racing key creation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApiKey, hashKey, revokeApiKey } from '../../src/keys/key.service.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { ENGINES, openTestStorage } from '../helpers/engines.ts';
import { rejectsWith } from '../helpers/errors.ts';
import { warmUp } from '../helpers/storage.ts';

const now = new Date('2026-06-01T00:00:00.000Z');
const make = async (storage: Storage, name: string, parentId: number | null = null, expiresAt: Date | null = null) =>
  (await createApiKey(storage, name, ['keys:admin', 'pets:read'], { now, parentId, expiresAt })).info;
const ids = (keys: readonly { id: number }[]) => keys.map((k) => k.id);

for (const engine of ENGINES) {
  describe(`${engine}: the key tree`, () => {
    test('a key made by a key records it; list within a key is its subtree; ancestors walk up to the top', async (t) => {
      const storage = await openTestStorage(t, engine);
      const root = await make(storage, 'root');
      const other = await make(storage, 'other');
      const child = await make(storage, 'child', root.id);
      const grandchild = await make(storage, 'grandchild', child.id);
      const sibling = await make(storage, 'sibling', root.id);
      const cousin = await make(storage, 'cousin', other.id);
      assert.equal(root.parentId, null);
      assert.equal(child.parentId, root.id);
      assert.equal(grandchild.parentId, child.id);
      assert.deepEqual(await storage.apiKeys.get(grandchild.id), grandchild);
      assert.deepEqual(ids(await storage.apiKeys.list({ limit: 100, afterId: 0, within: root.id })), ids([root, child, grandchild, sibling]));
      assert.deepEqual(ids(await storage.apiKeys.list({ limit: 100, afterId: 0, within: child.id })), ids([child, grandchild]));
      assert.deepEqual(ids(await storage.apiKeys.list({ limit: 2, afterId: child.id, within: root.id })), ids([grandchild, sibling]), 'paged by id');
      assert.deepEqual(ids(await storage.apiKeys.list({ limit: 100, afterId: 0 })), ids([root, other, child, grandchild, sibling, cousin]));
      assert.deepEqual(
        (await storage.apiKeys.ancestors(grandchild.id)).sort((a, b) => a - b),
        [root.id, child.id],
      );
      assert.deepEqual(await storage.apiKeys.ancestors(root.id), []);
      assert.deepEqual(await storage.apiKeys.ancestors(999_999), []);
    });

    test('descendants: the live keys below a key, paged by id; not the key itself, revoked or expired ones, nor other trees', async (t) => {
      const storage = await openTestStorage(t, engine);
      const root = await make(storage, 'root');
      const child = await make(storage, 'child', root.id);
      const grandchild = await make(storage, 'grandchild', child.id);
      const revoked = await make(storage, 'revoked', child.id);
      const expired = await make(storage, 'expired', root.id, new Date('2026-06-02T00:00:00.000Z'));
      const sibling = await make(storage, 'sibling', root.id);
      await make(storage, 'other');
      await revokeApiKey(storage, revoked.id, { now });
      const liveAt = new Date('2026-06-03T00:00:00.000Z');
      const under = (id: number, limit = 100, afterId = 0) => storage.apiKeys.descendants({ limit, afterId, under: id, liveAt });
      assert.deepEqual(ids(await under(root.id)), ids([child, grandchild, sibling]));
      assert.deepEqual(ids(await under(root.id, 1, child.id)), ids([grandchild]), 'paged by id');
      assert.deepEqual(ids(await under(child.id)), ids([grandchild]));
      assert.deepEqual(ids(await under(grandchild.id)), []);
      assert.deepEqual(
        ids(await storage.apiKeys.descendants({ limit: 100, afterId: 0, under: root.id, liveAt: now })),
        ids([child, grandchild, expired, sibling]),
        'not yet expired',
      );
      assert.deepEqual(ids(await under(999_999)), []);
    });

    test('revoking a key revokes its descendants at the same instant, not its parent, siblings or other trees', async (t) => {
      const storage = await openTestStorage(t, engine);
      const root = await make(storage, 'root');
      const child = await make(storage, 'child', root.id);
      const { key: secret, info: grandchild } = await createApiKey(storage, 'grandchild', ['pets:read'], { now, parentId: child.id });
      const earlier = await make(storage, 'revoked before', child.id);
      const sibling = await make(storage, 'sibling', root.id);
      const other = await make(storage, 'other');
      const first = new Date('2026-06-01T01:00:00.000Z');
      assert.equal(await revokeApiKey(storage, earlier.id, { now: first }), true);
      const at = new Date('2026-06-01T02:00:00.000Z');
      assert.equal(await revokeApiKey(storage, child.id, { now: at }), true);
      const revokedAt = async (id: number) => (await storage.apiKeys.get(id))!.revokedAt;
      assert.equal(await revokedAt(child.id), at.toISOString());
      assert.equal(await revokedAt(grandchild.id), at.toISOString());
      assert.equal(await revokedAt(earlier.id), first.toISOString(), 'an earlier revocation keeps its time');
      for (const k of [root, sibling, other]) assert.equal(await revokedAt(k.id), null, k.name);
      assert.equal((await storage.apiKeys.findByHash(hashKey(secret)))?.revokedAt, at.getTime(), 'authentication sees it');
    });

    test('a key never outlives its maker: without an expiry it takes the parent’s; a later one is refused; an earlier one is kept', async (t) => {
      const storage = await openTestStorage(t, engine);
      const parentExpiry = new Date('2027-01-01T00:00:00.000Z');
      const parent = await make(storage, 'parent', null, parentExpiry);
      assert.equal((await make(storage, 'no expiry', parent.id)).expiresAt, parentExpiry.toISOString());
      const earlier = new Date('2026-12-01T00:00:00.000Z');
      assert.equal((await make(storage, 'earlier', parent.id, earlier)).expiresAt, earlier.toISOString());
      await assert.rejects(
        make(storage, 'later', parent.id, new Date('2027-01-01T00:00:00.001Z')),
        rejectsWith('validation_failed', /not be later than .*2027-01-01T00:00:00\.000Z/),
      );
      assert.equal((await make(storage, 'under a key that never expires', (await make(storage, 'forever')).id)).expiresAt, null);
      assert.equal((await storage.apiKeys.list({ limit: 100, afterId: 0, within: parent.id })).length, 3, 'the refused key was not written');
    });

    test('a revoked, expired or unknown key makes no key (401)', async (t) => {
      const storage = await openTestStorage(t, engine);
      const revoked = await make(storage, 'revoked');
      await revokeApiKey(storage, revoked.id, { now });
      const expired = await make(storage, 'expired', null, new Date(now.getTime() + 1));
      for (const parentId of [revoked.id, expired.id, 999_999]) {
        await assert.rejects(
          createApiKey(storage, 'child', ['pets:read'], { now: new Date(now.getTime() + 1), parentId }),
          rejectsWith('unauthorized'),
          String(parentId),
        );
      }
      assert.equal(await storage.apiKeys.count(), 2);
    });

    test('keys made in a subtree while its root is revoked are revoked with it or refused, never left working (10 races)', async (t) => {
      const storage = await openTestStorage(t, engine);
      await warmUp(storage);
      for (let round = 0; round < 10; round++) {
        const root = await make(storage, `root ${round}`);
        const child = await make(storage, `child ${round}`, root.id);
        const makers = Array.from({ length: 4 }, (_, i) => make(storage, `grandchild ${round}.${i}`, i % 2 === 0 ? child.id : root.id));
        const [revoked, ...made] = await Promise.allSettled([revokeApiKey(storage, root.id, { now }), ...makers]);
        assert.equal(revoked.status, 'fulfilled');
        for (const m of made) if (m.status === 'rejected') rejectsWith('unauthorized')(m.reason);
        const subtree = await storage.apiKeys.list({ limit: 100, afterId: 0, within: root.id });
        assert.equal(subtree.length, 2 + made.filter((m) => m.status === 'fulfilled').length);
        for (const k of subtree) assert.notEqual(k.revokedAt, null, `round ${round}: ${k.name} still works`);
      }
    });
  });
}
