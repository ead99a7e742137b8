// The storage contract of the catalogue (issue 15): changing and withdrawing pets, If-Match
// inside the write's transaction, the inventory, categories and key expiry. Every engine passes it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashKey } from '../../src/keys/key.service.ts';
import type { Pet, PetStatus } from '../../src/pets/pet.schemas.ts';
import { entityTag, parseCondition } from '../../src/preconditions.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { ENGINES, openTestStorage } from '../helpers/engines.ts';
import { rejectsWith } from '../helpers/errors.ts';
import { insertKey, warmUp } from '../helpers/storage.ts';
import { createCategory, removeCategory, renameCategory } from '../../src/categories/category.service.ts';
import { createPet, updatePet, withdrawPet } from '../../src/pets/pet.service.ts';
import { placeOrder, transitionOrder } from '../../src/store/order.service.ts';
import { petRecord } from '../helpers/pets.ts';

const now = new Date('2026-08-01T09:00:00.000Z');
const ctx = { now };
const ifMatch = (value: string) => ({ now, ifMatch: parseCondition(value, 'If-Match') });

async function pet(storage: Storage, status: PetStatus = 'available', categoryId = 1): Promise<Pet> {
  return createPet(storage, petRecord({ name: 'Rex', categoryId, status }), ctx);
}

/** Every live pet, through the listing. */
async function listed(storage: Storage, filters: { status?: PetStatus; categoryId?: number } = {}): Promise<Pet[]> {
  const all: Pet[] = [];
  for (let afterId = 0; ; ) {
    const page = await storage.pets.list({ limit: 100, after: { id: afterId }, ...filters }).then((page) => page.pets);
    all.push(...page);
    if (page.length < 100) return all;
    afterId = page[page.length - 1].id;
  }
}

for (const engine of ENGINES) {
  describe(`${engine} storage: catalogue`, () => {
    describe('pets: update', () => {
      test('sets the fields given and keeps the others; get and list show the change', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        const updatedAt = now.toISOString();
        assert.deepEqual(await updatePet(storage, p.id, { name: 'Rex II' }, 'EUR', ctx), { ...p, name: 'Rex II', updatedAt });
        const moved = await updatePet(storage, p.id, { categoryId: 3, status: 'sold' }, 'EUR', ctx);
        assert.deepEqual(moved, { ...p, name: 'Rex II', categoryId: 3, status: 'sold', updatedAt });
        assert.deepEqual(await storage.pets.get(p.id), moved);
        assert.deepEqual(await listed(storage, { status: 'sold' }), [moved]);
      });

      test('refuses an unknown or deleted category, a missing or withdrawn pet, changing nothing', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        await assert.rejects(updatePet(storage, p.id, { categoryId: 999, name: 'x' }, 'EUR', ctx), rejectsWith('unknown_category', /categoryId 999/));
        const gone = await createCategory(storage, 'Gone', ctx);
        await removeCategory(storage, gone.id, ctx);
        await assert.rejects(updatePet(storage, p.id, { categoryId: gone.id }, 'EUR', ctx), rejectsWith('unknown_category'));
        assert.deepEqual(await storage.pets.get(p.id), p);
        await assert.rejects(
          updatePet(storage, p.id + 100, { name: 'x' }, 'EUR', ctx),
          rejectsWith('not_found', new RegExp(`pet ${p.id + 100} does not exist`)),
        );
        await withdrawPet(storage, p.id, ctx);
        await assert.rejects(updatePet(storage, p.id, { name: 'x' }, 'EUR', ctx), rejectsWith('not_found'));
      });

      test("while an order is open the status is the order's (pet_has_open_order); name and category may change", async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        const order = await placeOrder(storage, { petId: p.id }, ctx);
        await assert.rejects(updatePet(storage, p.id, { status: 'available' }, 'EUR', ctx), rejectsWith('pet_has_open_order', /has an open order/));
        await transitionOrder(storage, order.id, 'approved', ctx);
        await assert.rejects(updatePet(storage, p.id, { status: 'sold', name: 'x' }, 'EUR', ctx), rejectsWith('pet_has_open_order'));
        assert.equal((await storage.pets.get(p.id))!.name, 'Rex', 'nothing changed');
        assert.deepEqual(await updatePet(storage, p.id, { name: 'Rex II', categoryId: 2, status: 'pending' }, 'EUR', ctx), {
          ...p,
          name: 'Rex II',
          categoryId: 2,
          status: 'pending',
        });
        await transitionOrder(storage, order.id, 'delivered', ctx);
        assert.equal((await updatePet(storage, p.id, { status: 'available' }, 'EUR', ctx)).status, 'available', 'a pet taken back');
      });
    });

    describe('pets: If-Match, evaluated in the write', () => {
      test('a current tag, * and a list holding it pass; a stale or weak tag fails with nothing changed', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        const tag = entityTag(p);
        const renamed = await updatePet(storage, p.id, { name: 'A' }, 'EUR', ifMatch(`"nope", ${tag}`));
        await assert.rejects(updatePet(storage, p.id, { name: 'B' }, 'EUR', ifMatch(tag)), rejectsWith('precondition_failed', new RegExp(`pet ${p.id}`)));
        await assert.rejects(updatePet(storage, p.id, { name: 'B' }, 'EUR', ifMatch(`W/${entityTag(renamed)}`)), rejectsWith('precondition_failed'));
        await assert.rejects(withdrawPet(storage, p.id, ifMatch(tag)), rejectsWith('precondition_failed'));
        assert.deepEqual(await storage.pets.get(p.id), renamed);
        assert.equal((await updatePet(storage, p.id, { name: 'C' }, 'EUR', ifMatch('*'))).name, 'C');
        await assert.rejects(updatePet(storage, p.id + 100, { name: 'x' }, 'EUR', ifMatch('*')), rejectsWith('not_found'), 'a missing pet is 404, not 412');
        const current = (await storage.pets.get(p.id))!;
        await withdrawPet(storage, p.id, ifMatch(entityTag(current)));
        assert.equal(await storage.pets.get(p.id), undefined);
      });

      test("the tag changes when an order changes the pet's status, so a tag from before fails", async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        const before = entityTag((await storage.pets.get(p.id))!);
        const order = await placeOrder(storage, { petId: p.id }, ctx);
        const during = entityTag((await storage.pets.get(p.id))!);
        assert.notEqual(during, before);
        await assert.rejects(updatePet(storage, p.id, { name: 'x' }, 'EUR', ifMatch(before)), rejectsWith('precondition_failed'));
        await transitionOrder(storage, order.id, 'approved', ctx);
        assert.equal(entityTag((await storage.pets.get(p.id))!), during, 'approving leaves the pet as it was');
        await transitionOrder(storage, order.id, 'delivered', ctx);
        assert.notEqual(entityTag((await storage.pets.get(p.id))!), during);
      });

      test('orders: updateOrder with a stale tag fails and changes neither the order nor the pet', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        const placed = await placeOrder(storage, { petId: p.id }, ctx);
        const approved = await transitionOrder(storage, placed.id, 'approved', {
          now: new Date(now.getTime() + 1),
          ifMatch: parseCondition(entityTag(placed), 'If-Match'),
        });
        assert.notEqual(entityTag(approved), entityTag(placed));
        await assert.rejects(
          transitionOrder(storage, placed.id, 'cancelled', ifMatch(entityTag(placed))),
          rejectsWith('precondition_failed', new RegExp(`order ${placed.id}`)),
        );
        assert.deepEqual(await storage.orders.get(placed.id), approved);
        assert.equal((await storage.pets.get(p.id))!.status, 'pending');
        await assert.rejects(transitionOrder(storage, placed.id + 100, 'cancelled', ifMatch('*')), rejectsWith('not_found'));
      });

      test('20 concurrent updates with the same If-Match: exactly one wins, the rest fail the precondition', async (t) => {
        const storage = await openTestStorage(t, engine);
        await warmUp(storage);
        const p = await pet(storage);
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) => updatePet(storage, p.id, { name: `writer ${i}` }, 'EUR', ifMatch(entityTag(p)))),
        );
        const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        assert.equal(won.length, 1);
        for (const r of results) if (r.status === 'rejected') rejectsWith('precondition_failed')(r.reason);
        assert.deepEqual(await storage.pets.get(p.id), won[0]);
      });
    });

    describe('pets: withdraw', () => {
      test('the pet vanishes from get, every listing and the inventory; its orders stay; its id is never reused', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage, 'available', 2);
        const other = await pet(storage, 'available', 2);
        const order = await placeOrder(storage, { petId: p.id }, ctx);
        const cancelled = await transitionOrder(storage, order.id, 'cancelled', ctx);
        await withdrawPet(storage, p.id, ctx);
        assert.equal(await storage.pets.get(p.id), undefined);
        for (const filters of [{}, { status: 'available' as const }, { categoryId: 2 }, { categoryId: 2, status: 'available' as const }]) {
          assert.deepEqual(await listed(storage, filters), [other], JSON.stringify(filters));
        }
        assert.deepEqual(await storage.pets.inventory(), { available: 1, pending: 0, sold: 0, availableValue: {} });
        assert.deepEqual(await storage.orders.get(order.id), cancelled);
        assert.deepEqual(await storage.orders.list({ limit: 10, afterId: 0, petId: p.id }), [cancelled]);
        await assert.rejects(withdrawPet(storage, p.id, ctx), rejectsWith('not_found'), 'a second withdrawal');
        await assert.rejects(withdrawPet(storage, other.id + 100, ctx), rejectsWith('not_found'));
        await assert.rejects(placeOrder(storage, { petId: p.id }, ctx), rejectsWith('unknown_pet', new RegExp(`petId ${p.id} is not a known pet`)));
        assert.ok((await pet(storage)).id > other.id, 'a new pet gets a new id');
      });

      test('refused while an order is open (pet_has_open_order), allowed once it is closed', async (t) => {
        const storage = await openTestStorage(t, engine);
        const p = await pet(storage);
        const order = await placeOrder(storage, { petId: p.id }, ctx);
        await assert.rejects(withdrawPet(storage, p.id, ctx), rejectsWith('pet_has_open_order', /cannot be withdrawn/));
        assert.deepEqual(await storage.pets.get(p.id), { ...p, status: 'pending' });
        await transitionOrder(storage, order.id, 'cancelled', ctx);
        await withdrawPet(storage, p.id, ctx);
        assert.equal(await storage.pets.get(p.id), undefined);
      });

      test('withdraw racing placeOrder on one pet: exactly one wins, never both', async (t) => {
        const storage = await openTestStorage(t, engine);
        await warmUp(storage);
        for (let round = 0; round < 10; round++) {
          const p = await pet(storage);
          // Which one is asked first alternates between rounds.
          let withdrawal: Promise<void>;
          let order: Promise<unknown>;
          if (round % 2) {
            withdrawal = withdrawPet(storage, p.id, { now: new Date() });
            order = placeOrder(storage, { petId: p.id }, { now: new Date() });
          } else {
            order = placeOrder(storage, { petId: p.id }, { now: new Date() });
            withdrawal = withdrawPet(storage, p.id, { now: new Date() });
          }
          const [withdrawn, ordered] = await Promise.allSettled([withdrawal, order]);
          assert.notEqual(withdrawn.status, ordered.status, `round ${round}: one wins`);
          if (withdrawn.status === 'fulfilled') {
            rejectsWith('unknown_pet')((ordered as PromiseRejectedResult).reason);
            assert.equal(await storage.pets.get(p.id), undefined);
            assert.deepEqual(await storage.orders.list({ limit: 10, afterId: 0, petId: p.id }), []);
          } else {
            rejectsWith('pet_has_open_order')(withdrawn.reason);
            assert.equal((await storage.pets.get(p.id))!.status, 'pending');
          }
        }
      });
    });

    describe('pets: list by category', () => {
      test('filters by categoryId, alone or with status, in id order, paged by id', async (t) => {
        const storage = await openTestStorage(t, engine);
        const made: Pet[] = [];
        for (let i = 0; i < 12; i++) made.push(await pet(storage, (['available', 'pending', 'sold'] as const)[i % 3], 1 + (i % 2)));
        const expect = (f: (p: Pet) => boolean) => made.filter(f).map((p) => p.id);
        const ids = (q: Parameters<Storage['pets']['list']>[0]) =>
          storage.pets
            .list(q)
            .then((page) => page.pets)
            .then((ps) => ps.map((p) => p.id));
        assert.deepEqual(
          await ids({ limit: 100, categoryId: 2 }),
          expect((p) => p.categoryId === 2),
        );
        assert.deepEqual(
          await ids({ limit: 100, categoryId: 1, status: 'available' }),
          expect((p) => p.categoryId === 1 && p.status === 'available'),
        );
        const cat2 = expect((p) => p.categoryId === 2);
        assert.deepEqual(await ids({ limit: 2, after: { id: cat2[1] }, categoryId: 2 }), cat2.slice(2, 4));
        assert.deepEqual(await ids({ limit: 100, categoryId: 5 }), []);
      });
    });

    describe('inventory', () => {
      test('counts live pets by status through creates, orders, updates and withdrawals', async (t) => {
        const storage = await openTestStorage(t, engine);
        assert.deepEqual(await storage.pets.inventory(), { available: 0, pending: 0, sold: 0, availableValue: {} });
        const [a, b, c] = [await pet(storage), await pet(storage), await pet(storage, 'sold')];
        assert.deepEqual(await storage.pets.inventory(), { available: 2, pending: 0, sold: 1, availableValue: {} });
        const order = await placeOrder(storage, { petId: a.id }, ctx);
        assert.deepEqual(await storage.pets.inventory(), { available: 1, pending: 1, sold: 1, availableValue: {} });
        await transitionOrder(storage, order.id, 'approved', ctx);
        await transitionOrder(storage, order.id, 'delivered', ctx);
        assert.deepEqual(await storage.pets.inventory(), { available: 1, pending: 0, sold: 2, availableValue: {} });
        await updatePet(storage, b.id, { status: 'pending' }, 'EUR', ctx);
        await updatePet(storage, b.id, { name: 'renamed' }, 'EUR', ctx);
        assert.deepEqual(await storage.pets.inventory(), { available: 0, pending: 1, sold: 2, availableValue: {} });
        await withdrawPet(storage, c.id, ctx);
        await assert.rejects(withdrawPet(storage, c.id, ctx));
        assert.deepEqual(await storage.pets.inventory(), { available: 0, pending: 1, sold: 1, availableValue: {} });
        const byStatus = { available: 0, pending: 0, sold: 0 };
        for (const p of await listed(storage)) byStatus[p.status]++;
        assert.deepEqual(await storage.pets.inventory(), { ...byStatus, availableValue: {} }, 'the listings agree');
      });

      test('read during 200 concurrent status changes, it always sums to the number of pets and ends equal to the listings', async (t) => {
        const storage = await openTestStorage(t, engine);
        await warmUp(storage);
        const pets: Pet[] = [];
        for (let i = 0; i < 40; i++) pets.push(await pet(storage));
        const statuses = ['available', 'pending', 'sold'] as const;
        const sums: number[] = [];
        let writing = true;
        const reader = (async () => {
          while (writing) {
            const inv = await storage.pets.inventory();
            sums.push(inv.available + inv.pending + inv.sold);
            await new Promise((r) => setImmediate(r));
          }
        })();
        // Started in waves of 10 so that reads fall between them on every engine (SQLite commits
        // the writes of one loop turn together).
        const writes: Promise<Pet>[] = [];
        for (let i = 0; i < 200; i++) {
          writes.push(updatePet(storage, pets[i % pets.length].id, { status: statuses[(i * 7) % 3] }, 'EUR', { now: new Date() }));
          if (i % 10 === 9) await new Promise((r) => setImmediate(r));
        }
        await Promise.all(writes);
        writing = false;
        await reader;
        assert.ok(sums.length > 1, `the reader read while the writes ran (${sums.length} reads)`);
        assert.deepEqual([...new Set(sums)], [40]);
        const byStatus = { available: 0, pending: 0, sold: 0 };
        for (const p of await listed(storage)) byStatus[p.status]++;
        assert.deepEqual(await storage.pets.inventory(), { ...byStatus, availableValue: {} });
      });
    });

    describe('categories', () => {
      test("get reads a live category; rename changes the name (case changes included), refusing another's", async (t) => {
        const storage = await openTestStorage(t, engine);
        assert.deepEqual(await storage.categories.get(1), { id: 1, name: 'Dogs' });
        assert.equal(await storage.categories.get(999), undefined);
        assert.deepEqual(await renameCategory(storage, 1, 'DOGS', ctx), { id: 1, name: 'DOGS' });
        await assert.rejects(renameCategory(storage, 1, 'cats', ctx), rejectsWith('category_exists', /"cats" already exists/));
        assert.deepEqual(await storage.categories.get(1), { id: 1, name: 'DOGS' });
        await assert.rejects(renameCategory(storage, 999, 'x', ctx), rejectsWith('not_found', /category 999 does not exist/));
      });

      test('remove: refused while a live pet belongs to it; then gone, unusable, its name free, its id never reused', async (t) => {
        const storage = await openTestStorage(t, engine);
        const horses = await createCategory(storage, 'Horses', ctx);
        const p = await pet(storage, 'available', horses.id);
        await assert.rejects(removeCategory(storage, horses.id, ctx), rejectsWith('category_in_use', new RegExp(`category ${horses.id}`)));
        await withdrawPet(storage, p.id, ctx);
        await removeCategory(storage, horses.id, ctx);
        assert.equal(await storage.categories.get(horses.id), undefined);
        assert.ok(!(await storage.categories.list()).some((c) => c.id === horses.id));
        await assert.rejects(pet(storage, 'available', horses.id), rejectsWith('unknown_category'));
        await assert.rejects(renameCategory(storage, horses.id, 'x', ctx), rejectsWith('not_found'));
        await assert.rejects(removeCategory(storage, horses.id, ctx), rejectsWith('not_found'));
        const again = await createCategory(storage, 'horses', ctx);
        assert.ok(again.id > horses.id);
        await assert.rejects(removeCategory(storage, 999, ctx), rejectsWith('not_found'));
      });

      test('remove racing a pet created in the category: either the pet or the deletion, never a live pet in a deleted category', async (t) => {
        const storage = await openTestStorage(t, engine);
        await warmUp(storage);
        for (let round = 0; round < 10; round++) {
          const c = await createCategory(storage, `race ${round}`, ctx);
          const [removed, created] = await Promise.allSettled([removeCategory(storage, c.id, { now: new Date() }), pet(storage, 'available', c.id)]);
          assert.notEqual(removed.status, created.status, `round ${round}: one wins`);
          if (removed.status === 'fulfilled') rejectsWith('unknown_category')((created as PromiseRejectedResult).reason);
          else rejectsWith('category_in_use')(removed.reason);
        }
      });
    });

    describe('api keys', () => {
      test('an expiry is stored and handed to authentication; get and list page by id and never show a hash', async (t) => {
        const storage = await openTestStorage(t, engine);
        const expiresAt = new Date('2027-01-01T00:00:00.000Z');
        const a = await insertKey(storage, { name: 'a', prefix: 'pst_aaaa', hash: hashKey('a'), scopes: ['pets:read'], expiresAt }, ctx);
        const b = await insertKey(storage, { name: 'b', prefix: 'pst_bbbb', hash: hashKey('b'), scopes: ['keys:admin'], expiresAt: null }, ctx);
        assert.equal(a.expiresAt, '2027-01-01T00:00:00.000Z');
        assert.deepEqual(await storage.apiKeys.findByHash(hashKey('a')), {
          keyId: a.id,
          name: 'a',
          scopes: ['pets:read'],
          owner: false,
          revokedAt: null,
          expiresAt: expiresAt.getTime(),
        });
        assert.deepEqual(await storage.apiKeys.get(b.id), b);
        assert.equal(await storage.apiKeys.get(b.id + 10), undefined);
        assert.deepEqual(await storage.apiKeys.list({ limit: 1, afterId: 0 }), [a]);
        assert.deepEqual(await storage.apiKeys.list({ limit: 5, afterId: a.id }), [b]);
        for (const k of [a, b]) assert.ok(!JSON.stringify(k).includes(hashKey(k.name)));
      });
    });
  });
}
