// The storage contract: every engine behind src/storage/storage.ts must pass all of it.
import assert from 'node:assert/strict';
import { SERVICE_ACTOR } from '../../src/activity/activity.schemas.ts';
import { describe, test } from 'node:test';
import { hashKey } from '../../src/keys/key.service.ts';
import type { StoredResponse } from '../../src/events/idempotency.store.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { ENGINES, feedSettled, openSharedStorages, openTestStorage } from '../helpers/engines.ts';
import { rejectsWith } from '../helpers/errors.ts';
import { insertKey, warmUp } from '../helpers/storage.ts';
import { createCategory, removeCategory, renameCategory } from '../../src/categories/category.service.ts';
import { revokeApiKey } from '../../src/keys/key.service.ts';
import { createPet, updatePet, withdrawPet } from '../../src/pets/pet.service.ts';
import { placeOrder, transitionOrder } from '../../src/store/order.service.ts';
import { NO_RECORD, petRecord } from '../helpers/pets.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function pet(storage: Storage, status: 'available' | 'pending' | 'sold' = 'available') {
  return createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status }), { now: new Date() });
}

for (const engine of ENGINES) {
  describe(`${engine} storage`, () => {
    describe('pets', () => {
      test('create returns the stored pet with a database-assigned id; get reads it back', async (t) => {
        const storage = await openTestStorage(t, engine);
        const a = await createPet(storage, petRecord({ name: 'Rex', categoryId: 2, status: 'sold' }), { now: new Date() });
        const b = await createPet(storage, petRecord({ name: 'Tom', categoryId: 1, status: 'available' }), { now: new Date() });
        assert.deepEqual(a, { id: a.id, name: 'Rex', categoryId: 2, status: 'sold', tags: [], ...NO_RECORD, createdAt: a.createdAt, updatedAt: a.createdAt });
        assert.ok(Number.isSafeInteger(a.id) && a.id > 0);
        assert.ok(b.id > a.id);
        assert.deepEqual(await storage.pets.get(a.id), a);
        assert.equal(await storage.pets.get(b.id + 1000), undefined);
      });

      test('many gets at once (one loop turn): each its own pet, duplicates and misses included', async (t) => {
        const storage = await openTestStorage(t, engine);
        const pets = [];
        for (let i = 0; i < 5; i++)
          pets.push(await createPet(storage, petRecord({ name: `p${i}`, categoryId: 1 + (i % 3), status: 'available' }), { now: new Date() }));
        const ids = [pets[3].id, pets[0].id, 999_999, pets[3].id, pets[4].id, pets[1].id, 888_888];
        const got = await Promise.all(ids.map((id) => storage.pets.get(id)));
        assert.deepEqual(got, [pets[3], pets[0], undefined, pets[3], pets[4], pets[1], undefined]);
      });

      test('many listings at once (one loop turn): the same page twice, other pages, each caller its own array', async (t) => {
        const storage = await openTestStorage(t, engine);
        const statuses = ['available', 'sold', 'available', 'pending', 'available'] as const;
        const ids = [];
        for (const status of statuses) ids.push((await createPet(storage, petRecord({ name: status, categoryId: 1, status }), { now: new Date() })).id);
        const queries = [{ limit: 2 }, { limit: 2 }, { limit: 10, status: 'available' as const }, { limit: 2, after: { id: ids[1] } }, { limit: 3 }];
        const pages = await Promise.all(queries.map((q) => storage.pets.list(q).then((page) => page.pets)));
        assert.deepEqual(
          pages.map((p) => p.map((pet) => pet.id)),
          [ids.slice(0, 2), ids.slice(0, 2), [ids[0], ids[2], ids[4]], ids.slice(2, 4), ids.slice(0, 3)],
        );
        assert.notEqual(pages[0], pages[1], 'two callers, two arrays');
        pages[0].pop();
        assert.equal(pages[1].length, 2);
      });

      test('many creates at once (one loop turn), one with an unknown category: each its own pet, only that one fails', async (t) => {
        const storage = await openTestStorage(t, engine);
        const inputs = [
          { name: 'a', categoryId: 1, status: 'available' as const },
          { name: 'b', categoryId: 2, status: 'sold' as const },
          { name: 'bad', categoryId: 999, status: 'available' as const },
          { name: 'a', categoryId: 1, status: 'available' as const },
          { name: 'c 😀 and a lone surrogate \ud800', categoryId: 3, status: 'pending' as const },
        ];
        // What a name becomes once stored: UTF-8, so a lone surrogate is U+FFFD (on both engines).
        const stored = (i: (typeof inputs)[number]) => ({ ...i, name: Buffer.from(i.name).toString() });
        const valid = await Promise.all(inputs.filter((i) => i.categoryId !== 999).map((i) => createPet(storage, petRecord(i), { now: new Date() })));
        assert.deepEqual(
          valid.map(({ id: _id, tags: _tags, recordComplete: _rc, recordMissing: _rm, createdAt: _c, updatedAt: _u, ...rest }) => rest),
          [inputs[0], inputs[1], inputs[3], inputs[4]].map(stored),
          'a batch of valid inserts: each caller its own row',
        );
        for (const pet of valid) assert.deepEqual(await storage.pets.get(pet.id), pet);
        const results = await Promise.allSettled(inputs.map((i) => createPet(storage, petRecord(i), { now: new Date() })));
        const created = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);
        assert.deepEqual(
          created.map(({ id: _id, tags: _tags, recordComplete: _rc, recordMissing: _rm, createdAt: _c, updatedAt: _u, ...rest }) => rest),
          [inputs[0], inputs[1], inputs[3], inputs[4]].map(stored),
        );
        assert.equal(new Set(created.map((p) => p.id)).size, 4, 'four distinct ids');
        const failed = results[2];
        assert.equal(failed.status, 'rejected');
        assert.equal((failed as PromiseRejectedResult).reason.code, 'unknown_category');
        for (const pet of created) assert.deepEqual(await storage.pets.get(pet.id), pet);
        assert.equal((await storage.pets.list({ limit: 10 }).then((page) => page.pets)).length, 8);
      });

      test('create with an unknown category throws unknown_category', async (t) => {
        const storage = await openTestStorage(t, engine);
        await assert.rejects(
          createPet(storage, petRecord({ name: 'x', categoryId: 999, status: 'available' }), { now: new Date() }),
          rejectsWith('unknown_category', /categoryId 999 is not a known category/),
        );
        assert.deepEqual(await storage.pets.list({ limit: 10 }).then((page) => page.pets), []);
      });

      test('list pages by id (keyset) and filters by status', async (t) => {
        const storage = await openTestStorage(t, engine);
        const statuses = ['available', 'sold', 'available', 'pending', 'available'] as const;
        const pets = [];
        for (const status of statuses) pets.push(await createPet(storage, petRecord({ name: status, categoryId: 3, status }), { now: new Date() }));
        const ids = pets.map((p) => p.id);
        assert.deepEqual(
          (await storage.pets.list({ limit: 2 }).then((page) => page.pets)).map((p) => p.id),
          ids.slice(0, 2),
        );
        assert.deepEqual(
          (await storage.pets.list({ limit: 2, after: { id: ids[1] } }).then((page) => page.pets)).map((p) => p.id),
          ids.slice(2, 4),
        );
        assert.deepEqual(
          (await storage.pets.list({ limit: 2, after: { id: ids[3] } }).then((page) => page.pets)).map((p) => p.id),
          ids.slice(4),
        );
        assert.deepEqual(await storage.pets.list({ limit: 2, after: { id: ids[4] } }).then((page) => page.pets), []);
        const available = [ids[0], ids[2], ids[4]];
        assert.deepEqual(
          (await storage.pets.list({ limit: 10, status: 'available' }).then((page) => page.pets)).map((p) => p.id),
          available,
        );
        assert.deepEqual(
          (await storage.pets.list({ limit: 1, after: { id: ids[0] }, status: 'available' }).then((page) => page.pets)).map((p) => p.id),
          [ids[2]],
        );
        assert.deepEqual(await storage.pets.list({ limit: 10, status: 'pending' }).then((page) => page.pets), [pets[3]]);
      });
    });

    describe('categories', () => {
      test('lists the six seeded categories in id order', async (t) => {
        const storage = await openTestStorage(t, engine);
        assert.deepEqual(await storage.categories.list(), [
          { id: 1, name: 'Dogs' },
          { id: 2, name: 'Cats' },
          { id: 3, name: 'Birds' },
          { id: 4, name: 'Fish' },
          { id: 5, name: 'Reptiles' },
          { id: 6, name: 'Small mammals' },
        ]);
      });

      test('create assigns the next id after the seeds and makes the category usable by pets', async (t) => {
        const storage = await openTestStorage(t, engine);
        const c = await createCategory(storage, 'Horses', { now: new Date() });
        assert.deepEqual(c, { id: 7, name: 'Horses' });
        assert.deepEqual((await storage.categories.list()).at(-1), c);
        assert.equal((await createPet(storage, petRecord({ name: 'Bolt', categoryId: 7, status: 'available' }), { now: new Date() })).categoryId, 7);
      });

      test('create refuses a duplicate name, ignoring case', async (t) => {
        const storage = await openTestStorage(t, engine);
        await assert.rejects(createCategory(storage, 'Dogs', { now: new Date() }), rejectsWith('category_exists', /^a category named "Dogs" already exists/));
        await assert.rejects(createCategory(storage, 'dOGS', { now: new Date() }), rejectsWith('category_exists', /"dOGS" already exists/));
        assert.equal((await storage.categories.list()).length, 6);
      });
    });

    describe('api keys', () => {
      const input = { name: 'ci', prefix: 'pst_abcd', hash: hashKey('pst_secret-one'), scopes: ['pets:read', 'orders:write'] as const, expiresAt: null };
      const now = new Date('2026-01-02T03:04:05.678Z');

      test('create returns the key info with ISO timestamps and no secret', async (t) => {
        const storage = await openTestStorage(t, engine);
        const info = await insertKey(storage, input, { now });
        assert.deepEqual(info, {
          id: info.id,
          name: 'ci',
          prefix: 'pst_abcd',
          scopes: ['pets:read', 'orders:write'],
          createdAt: '2026-01-02T03:04:05.678Z',
          expiresAt: null,
          revokedAt: null,
          parentId: null,
          owner: false,
        });
        assert.deepEqual(await storage.apiKeys.list({ limit: 100, afterId: 0 }), [info]);
      });

      test('findByHash resolves a key to its principal, with its revocation once it is revoked', async (t) => {
        const storage = await openTestStorage(t, engine);
        const info = await insertKey(storage, input, { now });
        const principal = { keyId: info.id, name: 'ci', scopes: ['pets:read', 'orders:write'], owner: false, revokedAt: null, expiresAt: null };
        assert.deepEqual(await storage.apiKeys.findByHash(input.hash), principal);
        assert.equal(await storage.apiKeys.findByHash(hashKey('pst_other')), undefined);
        const later = new Date('2026-02-03T04:05:06.007Z');
        assert.equal(await revokeApiKey(storage, info.id, { now: later }), true);
        assert.equal(await revokeApiKey(storage, info.id, { now: later }), false, 'a second revocation changes nothing');
        await assert.rejects(revokeApiKey(storage, info.id + 100, { now: later }), rejectsWith('not_found'));
        assert.deepEqual(await storage.apiKeys.findByHash(input.hash), { ...principal, revokedAt: later.getTime() });
        assert.deepEqual(await storage.apiKeys.list({ limit: 100, afterId: 0 }), [{ ...info, revokedAt: '2026-02-03T04:05:06.007Z' }]);
      });

      test('findByHash for many keys at once (one loop turn): each its own answer, revoked ones with their revocation', async (t) => {
        const storage = await openTestStorage(t, engine);
        const a = await insertKey(storage, input, { now });
        const b = await insertKey(storage, { ...input, hash: hashKey('pst_secret-two'), scopes: ['orders:read'] }, { now });
        const c = await insertKey(storage, { ...input, hash: hashKey('pst_secret-three') }, { now });
        await revokeApiKey(storage, c.id, { now });
        const hashes = [hashKey('pst_secret-two'), input.hash, hashKey('pst_nobody'), hashKey('pst_secret-three'), input.hash];
        const found = await Promise.all(hashes.map((h) => storage.apiKeys.findByHash(h)));
        const A = { keyId: a.id, name: 'ci', scopes: ['pets:read', 'orders:write'], owner: false, revokedAt: null, expiresAt: null };
        const C = { ...A, keyId: c.id, revokedAt: now.getTime() };
        assert.deepEqual(found, [{ keyId: b.id, name: 'ci', scopes: ['orders:read'], owner: false, revokedAt: null, expiresAt: null }, A, undefined, C, A]);
      });

      test('count counts every key, revoked or not; hashes are unique', async (t) => {
        const storage = await openTestStorage(t, engine);
        assert.equal(await storage.apiKeys.count(), 0);
        const a = await insertKey(storage, input, { now });
        await insertKey(storage, { ...input, hash: hashKey('pst_secret-two') }, { now });
        await revokeApiKey(storage, a.id, { now });
        assert.equal(await storage.apiKeys.count(), 2);
        await assert.rejects(insertKey(storage, input, { now }));
        assert.equal(await storage.apiKeys.count(), 2);
      });
    });

    describe('secret', () => {
      test('is stable across calls, distinct per name, and shared by every instance on the database', async (t) => {
        const [a, b] = await openSharedStorages(t, engine, 2);
        const first = await a.secret('cursor');
        assert.match(first, /^[\w-]{43}$/);
        assert.equal(await a.secret('cursor'), first);
        assert.equal(await b.secret('cursor'), first);
        assert.notEqual(await b.secret('other'), first);
        assert.equal(await a.secret('other'), await b.secret('other'));
      });
    });

    describe('orders', () => {
      const placedAt = new Date('2026-03-04T05:06:07.089Z');
      const laterAt = new Date('2026-03-04T06:00:00.001Z');

      test('place creates a placed order with RFC 3339 UTC timestamps and marks the pet pending', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        const order = await placeOrder(storage, { petId: p.id }, { now: placedAt });
        assert.deepEqual(order, {
          id: order.id,
          petId: p.id,
          status: 'placed',
          method: 'sale',
          createdAt: '2026-03-04T05:06:07.089Z',
          updatedAt: '2026-03-04T05:06:07.089Z',
        });
        assert.match(order.createdAt, ISO_MS);
        assert.equal((await storage.pets.get(p.id))!.status, 'pending');
        assert.deepEqual(await storage.orders.get(order.id), order);
        assert.equal(await storage.orders.get(order.id + 1000), undefined);
      });

      test('place refuses an unknown pet and a pet that is not available, changing nothing', async (t) => {
        const storage = await openTestStorage(t, engine);
        await assert.rejects(placeOrder(storage, { petId: 4242 }, { now: placedAt }), rejectsWith('unknown_pet', /petId 4242 is not a known pet/));
        const sold = await pet(storage, 'sold');
        await assert.rejects(
          placeOrder(storage, { petId: sold.id }, { now: placedAt }),
          rejectsWith('pet_not_available', new RegExp(`pet ${sold.id} is sold, not available`)),
        );
        const p = await pet(storage);
        await placeOrder(storage, { petId: p.id }, { now: placedAt });
        await assert.rejects(placeOrder(storage, { petId: p.id }, { now: placedAt }), rejectsWith('pet_not_available', /is pending/));
        assert.equal((await storage.pets.get(sold.id))!.status, 'sold');
        assert.equal((await storage.orders.list({ limit: 10, afterId: 0 })).length, 1);
      });

      test('transition walks the lifecycle and moves the pet with it', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        const placed = await placeOrder(storage, { petId: p.id }, { now: placedAt });
        const approved = await transitionOrder(storage, placed.id, 'approved', { now: laterAt });
        assert.deepEqual(approved, { ...placed, status: 'approved', updatedAt: '2026-03-04T06:00:00.001Z' });
        assert.equal((await storage.pets.get(p.id))!.status, 'pending');
        const delivered = await transitionOrder(storage, placed.id, 'delivered', { now: laterAt });
        assert.equal(delivered.status, 'delivered');
        assert.equal((await storage.pets.get(p.id))!.status, 'sold');
        assert.deepEqual(await storage.orders.get(placed.id), delivered);
      });

      test('cancelling makes the pet available again, and it can be ordered anew', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        const first = await placeOrder(storage, { petId: p.id }, { now: placedAt });
        await transitionOrder(storage, first.id, 'cancelled', { now: laterAt });
        assert.equal((await storage.pets.get(p.id))!.status, 'available');
        const second = await placeOrder(storage, { petId: p.id }, { now: laterAt });
        assert.ok(second.id > first.id);
        assert.equal((await storage.pets.get(p.id))!.status, 'pending');
      });

      test('transition refuses what the lifecycle forbids and unknown orders, changing nothing', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        const order = await placeOrder(storage, { petId: p.id }, { now: placedAt });
        await assert.rejects(
          transitionOrder(storage, order.id, 'delivered', { now: laterAt }),
          rejectsWith('invalid_transition', /cannot go from placed to delivered \(allowed: approved, cancelled\)/),
        );
        assert.equal((await storage.orders.get(order.id))!.status, 'placed');
        assert.equal((await storage.pets.get(p.id))!.status, 'pending');
        await transitionOrder(storage, order.id, 'cancelled', { now: laterAt });
        await assert.rejects(transitionOrder(storage, order.id, 'approved', { now: laterAt }), rejectsWith('invalid_transition', /\(cancelled is final\)/));
        assert.equal((await storage.pets.get(p.id))!.status, 'available');
        await assert.rejects(transitionOrder(storage, order.id + 1000, 'approved', { now: laterAt }), rejectsWith('not_found', /does not exist/));
      });

      test('list pages by id and filters by status and pet', async (t) => {
        const storage = await openTestStorage(t, engine);
        const [p1, p2, p3] = [await pet(storage), await pet(storage), await pet(storage)];
        const o1 = await placeOrder(storage, { petId: p1.id }, { now: placedAt });
        const o2 = await placeOrder(storage, { petId: p2.id }, { now: placedAt });
        const o3 = await placeOrder(storage, { petId: p3.id }, { now: placedAt });
        await transitionOrder(storage, o2.id, 'cancelled', { now: laterAt });
        const o4 = await placeOrder(storage, { petId: p2.id }, { now: laterAt });
        const ids = (q: Parameters<Storage['orders']['list']>[0]) => storage.orders.list(q).then((os) => os.map((o) => o.id));
        assert.deepEqual(await ids({ limit: 10, afterId: 0 }), [o1.id, o2.id, o3.id, o4.id]);
        assert.deepEqual(await ids({ limit: 2, afterId: o1.id }), [o2.id, o3.id]);
        assert.deepEqual(await ids({ limit: 10, afterId: 0, status: 'placed' }), [o1.id, o3.id, o4.id]);
        assert.deepEqual(await ids({ limit: 10, afterId: 0, petId: p2.id }), [o2.id, o4.id]);
        assert.deepEqual(await ids({ limit: 10, afterId: 0, petId: p2.id, status: 'cancelled' }), [o2.id]);
        assert.deepEqual(await ids({ limit: 10, afterId: o4.id }), []);
      });
    });

    describe('idempotency keys', () => {
      const id = { subject: 'key:1', operation: 'POST /v1/pets', key: 'k1' };
      const t0 = new Date('2026-05-01T12:00:00Z');
      const at = (ms: number) => new Date(t0.getTime() + ms);
      const DAY = 24 * 3600 * 1000;
      const claim = (storage: Storage, fingerprint: string, now: Date, key = id) =>
        storage.idempotency.claim(key, fingerprint, now, at(now.getTime() - t0.getTime() - DAY), at(now.getTime() - t0.getTime() - 300_000));
      // Responses are stored by the write they report, in its transaction (WriteContext.idempotency).
      const complete = (storage: Storage, response: StoredResponse) =>
        createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status: 'available' }), { now: t0, idempotency: { id, respond: () => response } });

      test('claim takes a fresh key, reports it in flight, then replays the completed response', async (t) => {
        const storage = await openTestStorage(t, engine);
        assert.equal(await claim(storage, 'f1', t0), undefined);
        assert.deepEqual(await claim(storage, 'f1', at(1000)), { fingerprint: 'f1', response: undefined });
        await complete(storage, { status: 201, body: '{"id":1}', location: '/v1/pets/1' });
        assert.deepEqual(await claim(storage, 'f2', at(2000)), { fingerprint: 'f1', response: { status: 201, body: '{"id":1}', location: '/v1/pets/1' } });
        assert.equal(await claim(storage, 'f1', at(0), { ...id, subject: 'key:2' }), undefined, 'another subject is another key');
        assert.equal(await claim(storage, 'f1', at(0), { ...id, operation: 'POST /v1/store/orders' }), undefined, 'another operation is another key');
      });

      test('release frees an in-flight claim but never a completed one', async (t) => {
        const storage = await openTestStorage(t, engine);
        await claim(storage, 'f1', t0);
        await storage.idempotency.release(id);
        assert.equal(await claim(storage, 'f2', at(1)), undefined);
        await complete(storage, { status: 201, body: '{}', location: null });
        await storage.idempotency.release(id);
        assert.equal((await claim(storage, 'f2', at(2)))?.response?.status, 201);
      });

      test('records past retention and abandoned in-flight claims are taken over; purge deletes old records', async (t) => {
        const storage = await openTestStorage(t, engine);
        await claim(storage, 'f1', t0);
        assert.ok(await claim(storage, 'f1', at(299_000)), 'in flight for under 5 min: still live');
        assert.equal(await claim(storage, 'f2', at(301_000)), undefined, 'abandoned claim taken over');
        await complete(storage, { status: 201, body: '{}', location: null });
        assert.ok(await claim(storage, 'f3', at(301_000 + DAY - 1)), 'completed record kept for 24 h');
        assert.equal(await claim(storage, 'f3', at(301_000 + DAY + 1)), undefined, 'then the key is new again');
        await claim(storage, 'x', t0, { ...id, key: 'old' });
        assert.equal(await storage.idempotency.purge(at(1)), 1);
        assert.equal(await storage.idempotency.purge(at(1)), 0);
      });

      test('20 concurrent claims of one key: exactly one wins', async (t) => {
        const storage = await openTestStorage(t, engine);
        const results = await Promise.all(Array.from({ length: 20 }, () => claim(storage, 'f', t0)));
        assert.equal(results.filter((r) => r === undefined).length, 1);
        for (const r of results.filter(Boolean)) assert.deepEqual(r, { fingerprint: 'f', response: undefined });
      });
    });

    describe('events (transactional outbox)', () => {
      const at = new Date('2026-07-01T10:00:00.123Z');
      // The whole feed once every committed event is in it (PostgreSQL lists an event a little after
      // its commit: feedSettled).
      const all = async (storage: Storage) => {
        await feedSettled(storage);
        return storage.events.list({ limit: 100, afterId: 0 });
      };
      const seq = (id: string) => Number(id.slice('evt_'.length));

      test('every write records its events in order, with the resource after the change; a refused write records none', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await createPet(storage, petRecord({ name: 'Rex', categoryId: 2, status: 'available' }), { now: at });
        const placed = await placeOrder(storage, { petId: p.id }, { now: at });
        await assert.rejects(placeOrder(storage, { petId: p.id }, { now: at }), rejectsWith('pet_not_available'));
        const approved = await transitionOrder(storage, placed.id, 'approved', { now: at });
        const delivered = await transitionOrder(storage, placed.id, 'delivered', { now: at });
        const category = await createCategory(storage, 'Horses', { now: at });
        await assert.rejects(createCategory(storage, 'horses', { now: at }), rejectsWith('category_exists'));
        const events = await all(storage);
        assert.deepEqual(
          events.map(({ id: _id, ...e }) => e),
          [
            { type: 'pet.created', createdAt: '2026-07-01T10:00:00.123Z', data: p, actor: SERVICE_ACTOR },
            { type: 'order.placed', createdAt: '2026-07-01T10:00:00.123Z', data: placed, actor: SERVICE_ACTOR },
            {
              type: 'pet.updated',
              createdAt: '2026-07-01T10:00:00.123Z',
              data: { ...p, status: 'pending' },
              actor: SERVICE_ACTOR,
              changes: { status: ['available', 'pending'] },
            },
            // placed → approved leaves the pet pending: no pet.updated.
            { type: 'order.approved', createdAt: '2026-07-01T10:00:00.123Z', data: approved, actor: SERVICE_ACTOR },
            { type: 'order.delivered', createdAt: '2026-07-01T10:00:00.123Z', data: delivered, actor: SERVICE_ACTOR },
            {
              type: 'pet.updated',
              createdAt: '2026-07-01T10:00:00.123Z',
              data: { ...p, status: 'sold' },
              actor: SERVICE_ACTOR,
              changes: { status: ['pending', 'sold'] },
            },
            { type: 'category.created', createdAt: '2026-07-01T10:00:00.123Z', data: category, actor: SERVICE_ACTOR },
          ],
        );
        const ids = events.map((e) => seq(e.id));
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
          'ascending',
        );
        assert.equal(new Set(ids).size, ids.length);
        for (const e of events) assert.match(e.id, /^evt_[1-9][0-9]*$/);
      });

      test('the catalogue writes record theirs: pet.updated for a real change only, pet.deleted and category.deleted with {id}, category.updated', async (t) => {
        const storage = await openTestStorage(t, engine);
        const category = await createCategory(storage, 'Horses', { now: at });
        const p = await createPet(storage, petRecord({ name: 'Rex', categoryId: category.id, status: 'available' }), { now: at });
        const renamed = await updatePet(storage, p.id, { name: 'Rex II' }, 'EUR', { now: at });
        const moved = await updatePet(storage, p.id, { categoryId: 2, status: 'sold' }, 'EUR', { now: at });
        await updatePet(storage, p.id, { name: 'Rex II', status: 'sold' }, 'EUR', { now: at }); // nothing changes: no event
        await assert.rejects(updatePet(storage, p.id, { categoryId: 999 }, 'EUR', { now: at }), rejectsWith('unknown_category'));
        const category2 = await renameCategory(storage, category.id, 'Ponies', { now: at });
        await renameCategory(storage, category.id, 'Ponies', { now: at }); // same name: no event
        await withdrawPet(storage, p.id, { now: at });
        await removeCategory(storage, category.id, { now: at });
        const events = await all(storage);
        assert.deepEqual(
          events.map(({ id: _id, ...e }) => e),
          [
            { type: 'category.created', createdAt: '2026-07-01T10:00:00.123Z', data: category, actor: SERVICE_ACTOR },
            { type: 'pet.created', createdAt: '2026-07-01T10:00:00.123Z', data: p, actor: SERVICE_ACTOR },
            { type: 'pet.updated', createdAt: '2026-07-01T10:00:00.123Z', data: renamed, actor: SERVICE_ACTOR, changes: { name: ['Rex', 'Rex II'] } },
            {
              type: 'pet.updated',
              createdAt: '2026-07-01T10:00:00.123Z',
              data: moved,
              actor: SERVICE_ACTOR,
              changes: { categoryId: [category.id, 2], status: ['available', 'sold'] },
            },
            {
              type: 'category.updated',
              createdAt: '2026-07-01T10:00:00.123Z',
              data: category2,
              actor: SERVICE_ACTOR,
              changes: { name: ['Horses', 'Ponies'] },
            },
            { type: 'pet.deleted', createdAt: '2026-07-01T10:00:00.123Z', data: { id: p.id }, actor: SERVICE_ACTOR },
            { type: 'category.deleted', createdAt: '2026-07-01T10:00:00.123Z', data: { id: category.id }, actor: SERVICE_ACTOR },
          ],
        );
        assert.deepEqual(renamed, { ...p, name: 'Rex II' });
        assert.deepEqual(moved, { ...p, name: 'Rex II', categoryId: 2, status: 'sold' });
        assert.equal(p.createdAt, at.toISOString(), "createdAt and updatedAt are the write's time");
      });

      test('list pages after an id and filters by type; purge deletes events older than a date', async (t) => {
        const storage = await openTestStorage(t, engine);
        const old = new Date('2026-01-01T00:00:00Z');
        for (let i = 0; i < 3; i++) await createPet(storage, petRecord({ name: `old ${i}`, categoryId: 1, status: 'available' }), { now: old });
        const p = await createPet(storage, petRecord({ name: 'new', categoryId: 1, status: 'available' }), { now: at });
        await placeOrder(storage, { petId: p.id }, { now: at });
        const events = await all(storage);
        assert.equal(events.length, 6);
        const after = await storage.events.list({ limit: 2, afterId: seq(events[1].id) });
        assert.deepEqual(after, events.slice(2, 4));
        assert.deepEqual(
          (await storage.events.list({ limit: 10, afterId: 0, type: 'pet.created' })).map((e) => e.data),
          events.filter((e) => e.type === 'pet.created').map((e) => e.data),
        );
        assert.deepEqual(await storage.events.list({ limit: 10, afterId: 0, type: 'order.cancelled' }), []);
        assert.equal(await storage.events.purge(new Date('2026-06-01T00:00:00Z')), 3);
        assert.deepEqual(await all(storage), events.slice(3));
      });

      test('a write whose idempotent response cannot be stored leaves nothing behind: no resource, no event, claim still open', async (t) => {
        const storage = await openTestStorage(t, engine);
        const id = { subject: 'key:1', operation: 'POST /v1/pets', key: 'k' };
        assert.equal(await storage.idempotency.claim(id, 'f', at, new Date(0), new Date(0)), undefined);
        const failing = {
          id,
          respond: () => {
            throw new Error('store step failed');
          },
        };
        await assert.rejects(
          createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status: 'available' }), { now: at, idempotency: failing }),
          /store step failed/,
        );
        assert.deepEqual(await storage.pets.list({ limit: 10 }).then((page) => page.pets), []);
        assert.deepEqual(await all(storage), []);
        // A claim that does not exist (lost) fails the write too.
        const lost = { id: { ...id, key: 'never-claimed' }, respond: () => ({ status: 201, body: '{}', location: null }) };
        await assert.rejects(createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status: 'available' }), { now: at, idempotency: lost }), /claim/);
        assert.deepEqual(await storage.pets.list({ limit: 10 }).then((page) => page.pets), []);
        // The open claim is completed by the retry's write, in the same transaction as its pet.
        const ok = { id, respond: (pet: { id: number }) => ({ status: 201, body: JSON.stringify(pet), location: `/v1/pets/${pet.id}` }) };
        const pet = await createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status: 'available' }), { now: at, idempotency: ok });
        const record = await storage.idempotency.claim(id, 'f', at, new Date(0), new Date(0));
        assert.deepEqual(record, { fingerprint: 'f', response: { status: 201, body: JSON.stringify(pet), location: `/v1/pets/${pet.id}` } });
        assert.equal((await all(storage)).length, 1);
      });

      test('a reader paging the feed while several instances write misses nothing: the feed is in commit order', async (t) => {
        const [a, b] = await openSharedStorages(t, engine, 2);
        await warmUp(a);
        await warmUp(b);
        const seen: number[] = [];
        let writing = true;
        const reader = (async () => {
          let after = 0;
          for (;;) {
            const done = !writing;
            const page = await a.events.list({ limit: 50, afterId: after });
            for (const e of page) seen.push(seq(e.id));
            if (page.length > 0) after = seq(page[page.length - 1].id);
            else if (done) return;
            await new Promise((r) => setImmediate(r));
          }
        })();
        const writes: Promise<unknown>[] = [];
        for (let i = 0; i < 150; i++)
          writes.push(createPet(i % 2 ? a : b, petRecord({ name: `p${i}`, categoryId: 1, status: 'available' }), { now: new Date() }));
        await Promise.all(writes);
        // Every write committed and in the feed: the reader's last empty page then means it has all.
        await feedSettled(a);
        writing = false;
        await reader;
        const everything = (await a.events.list({ limit: 1000, afterId: 0 })).map((e) => seq(e.id));
        assert.equal(everything.length, 150);
        assert.deepEqual(seen, everything, 'the reader saw every event exactly once, in order');
      });
    });

    describe('stats', () => {
      test('reports connection gauges', async (t) => {
        const storage = await openTestStorage(t, engine);
        await storage.ping();
        const s = storage.stats?.();
        assert.ok(s, 'the engine reports stats');
        assert.ok(s.connections >= 1 && s.idle >= 0 && s.idle <= s.connections && s.waiting >= 0, JSON.stringify(s));
      });
    });

    describe('concurrency', () => {
      test('50 concurrent orders for one pet: exactly one succeeds, the rest get pet_not_available', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        await warmUp(storage);
        const results = await Promise.allSettled(Array.from({ length: 50 }, () => placeOrder(storage, { petId: p.id }, { now: new Date() })));
        const won = results.filter((r) => r.status === 'fulfilled');
        assert.equal(won.length, 1);
        for (const r of results) if (r.status === 'rejected') rejectsWith('pet_not_available')(r.reason);
        assert.equal((await storage.pets.get(p.id))!.status, 'pending');
        assert.deepEqual(await storage.orders.list({ limit: 100, afterId: 0, petId: p.id }), [won[0].value]);
      });

      test('deliver racing cancel on one order: exactly one wins and the pet status matches the winner', async (t) => {
        const storage = await openTestStorage(t, engine);
        await warmUp(storage);
        for (let round = 0; round < 10; round++) {
          const p = await pet(storage);
          const order = await placeOrder(storage, { petId: p.id }, { now: new Date() });
          await transitionOrder(storage, order.id, 'approved', { now: new Date() });
          const moves = ['delivered', 'cancelled'] as const;
          const ordered = round % 2 ? moves : [...moves].reverse();
          const results = await Promise.allSettled(ordered.map((to) => transitionOrder(storage, order.id, to, { now: new Date() })));
          const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
          assert.equal(won.length, 1, `round ${round}: one winner`);
          for (const r of results) if (r.status === 'rejected') rejectsWith('invalid_transition', /is final/)(r.reason);
          assert.equal((await storage.orders.get(order.id))!.status, won[0].status);
          assert.equal((await storage.pets.get(p.id))!.status, won[0].status === 'delivered' ? 'sold' : 'available');
        }
      });
    });
  });
}
