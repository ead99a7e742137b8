import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { buildTestApp, fixedClock, keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES, openTestStorage } from '../helpers/engines.ts';

const post = (url: string, headers: Record<string, string>, payload: object) => ({ method: 'POST' as const, url, headers, payload });

for (const engine of ENGINES) {
  describe(`Idempotency-Key on POST /v1/pets (${engine})`, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    test('a repeat with the same key and body replays the first response and creates nothing', async (t) => {
      const { app, auth } = await testApp(t);
      const headers = { ...auth, 'idempotency-key': 'create-rex-1' };
      const first = await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
      assert.equal(first.statusCode, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      // Same body with its fields in another order.
      const again = await app.inject(post('/v1/pets', headers, { categoryId: 1, name: 'Rex' }));
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.headers.location, first.headers.location);
      assert.match(String(again.headers['content-type']), /^application\/json/);
      assert.deepEqual(again.json(), first.json());
      const list = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
      assert.equal(list.json().length, 1);
    });

    test('the same key with a different body is refused with 422 idempotency_key_reused', async (t) => {
      const { app, auth } = await testApp(t);
      const headers = { ...auth, 'idempotency-key': 'k-422' };
      assert.equal((await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }))).statusCode, 201);
      const res = await app.inject(post('/v1/pets', headers, { name: 'Max', categoryId: 1 }));
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().code, 'idempotency_key_reused');
      assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).json().length, 1);
    });

    test('the same key while the first request is in flight is refused with 409 idempotency_key_in_use', async (t) => {
      const storage = await openTestStorage(t, engine);
      // Hold the first create inside the repository until the second request has been answered.
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      // Armed once the app (and its key) exists: the next write, the first create, waits at the gate.
      let armed = false;
      const gated: Storage = {
        ...storage,
        transaction: async (work) => {
          if (armed) {
            armed = false;
            entered();
            await gate;
          }
          return storage.transaction(work);
        },
      };
      const { app, auth } = await buildTestApp(t, { storage: gated });
      armed = true;
      const headers = { ...auth, 'idempotency-key': 'in-flight' };
      const first = app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
      await inside;
      const second = await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
      assert.equal(second.statusCode, 409);
      assert.equal(second.json().code, 'idempotency_key_in_use');
      assert.equal(second.headers['retry-after'], '1');
      release();
      assert.equal((await first).statusCode, 201);
      const third = await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
      assert.equal(third.headers['idempotent-replayed'], 'true');
      assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).json().length, 1);
    });

    test('when storing the response fails, the write is undone with it: 500, no pet, and the retry creates exactly one', async (t) => {
      const storage = await openTestStorage(t, engine);
      // The first attempt's store step (inside the write's transaction) fails once.
      let failures = 1;
      const failing: Storage = {
        ...storage,
        transaction: (work) =>
          storage.transaction((tx) =>
            work({
              ...tx,
              idempotency: {
                complete: (id, response) => {
                  if (failures-- > 0) throw new Error('storing the idempotent response failed');
                  return tx.idempotency.complete(id, response);
                },
              },
            }),
          ),
      };
      const { app, auth } = await buildTestApp(t, { storage: failing });
      const headers = { ...auth, 'idempotency-key': 'store-step-fails' };
      const first = await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
      assert.equal(first.statusCode, 500);
      assert.equal(first.json().code, 'internal_error');
      assert.deepEqual((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).json(), [], 'the pet was rolled back with its response');
      const retry = await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
      assert.equal(retry.statusCode, 201);
      assert.equal(retry.headers['idempotent-replayed'], undefined);
      const replay = await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(replay.json(), retry.json());
      assert.equal(replay.headers.location, retry.headers.location);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).json().length, 1);
    });

    test('keys are scoped to the API key: another key with the same Idempotency-Key creates its own pet', async (t) => {
      const { app, auth, storage } = await buildTestApp(t, { engine, env: { PETSTORE_API_KEYS: 'bootstrap-one-0123456789,bootstrap-two-0123456789' } });
      const other = await keyWithScopes(storage, ['pets:write']);
      const callers = [auth, other, { authorization: 'Bearer bootstrap-one-0123456789' }, { authorization: 'Bearer bootstrap-two-0123456789' }];
      const ids = new Set<number>();
      for (const caller of callers) {
        const res = await app.inject(post('/v1/pets', { ...caller, 'idempotency-key': 'shared' }, { name: 'Rex', categoryId: 1 }));
        assert.equal(res.statusCode, 201);
        assert.equal(res.headers['idempotent-replayed'], undefined);
        ids.add(res.json().id);
      }
      assert.equal(ids.size, 4);
      const replay = await app.inject(
        post('/v1/pets', { authorization: 'Bearer bootstrap-one-0123456789', 'idempotency-key': 'shared' }, { name: 'Rex', categoryId: 1 }),
      );
      assert.equal(replay.headers['idempotent-replayed'], 'true', 'a bootstrap key has a stable scope');
    });

    test('accepts keys of 1 to 255 characters (bare or as a quoted sf-string); others are 400', async (t) => {
      const { app, auth } = await testApp(t);
      for (const key of ['a', 'x'.repeat(255), '"quoted key"']) {
        assert.equal((await app.inject(post('/v1/pets', { ...auth, 'idempotency-key': key }, { name: key.slice(0, 20), categoryId: 1 }))).statusCode, 201, key);
      }
      for (const key of ['x'.repeat(256), '', 'naïve']) {
        const res = await app.inject(post('/v1/pets', { ...auth, 'idempotency-key': key }, { name: 'Rex', categoryId: 1 }));
        assert.equal(res.statusCode, 400, JSON.stringify(key));
        assert.equal(res.json().code, 'bad_request');
      }
    });

    test('a failed first attempt is not stored: the key can be retried with a corrected body', async (t) => {
      const { app, auth } = await testApp(t);
      const headers = { ...auth, 'idempotency-key': 'retry-me' };
      const failed = await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 999 }));
      assert.equal(failed.json().code, 'unknown_category');
      const invalid = await app.inject(post('/v1/pets', headers, { name: '', categoryId: 1 }));
      assert.equal(invalid.statusCode, 400);
      const ok = await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
      assert.equal(ok.statusCode, 201);
      assert.equal(ok.headers['idempotent-replayed'], undefined);
    });

    test('records are kept 24 hours: after that the key is new again, and purge removes them', async (t) => {
      const clock = fixedClock(new Date('2026-05-01T12:00:00Z'));
      const { app, auth, storage } = await buildTestApp(t, { engine, clock });
      const headers = { ...auth, 'idempotency-key': 'day-old' };
      const first = await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
      clock.set(new Date('2026-05-02T11:59:59Z'));
      assert.equal((await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }))).headers['idempotent-replayed'], 'true');
      clock.set(new Date('2026-05-02T12:00:01Z'));
      const later = await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
      assert.equal(later.headers['idempotent-replayed'], undefined);
      assert.notEqual(later.json().id, first.json().id);
      assert.equal(await storage.idempotency.purge(new Date('2026-05-02T12:00:00Z')), 0, 'the fresh record stays');
      assert.equal(await storage.idempotency.purge(new Date('2026-05-03T12:00:02Z')), 1);
    });

    // Restart on a file database; on PostgreSQL the data outlives the app by construction.
    if (engine === 'sqlite')
      test('is stored in the database: a replay works after a restart', async (t) => {
        const dir = mkdtempSync(join(tmpdir(), 'petstore-idem-'));
        t.after(() => rmSync(dir, { recursive: true, force: true }));
        const path = join(dir, 'db.sqlite');
        const env = { PETSTORE_API_KEYS: 'bootstrap-restart-0123456789' };
        const headers = { authorization: 'Bearer bootstrap-restart-0123456789', 'idempotency-key': 'survives' };
        const s1 = openSqlite({ path });
        const one = await buildTestApp(t, { storage: s1, env });
        const first = await one.app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
        await one.app.close();
        await s1.close();
        const s2 = openSqlite({ path });
        t.after(() => s2.close());
        const two = await buildTestApp(t, { storage: s2, env });
        const again = await two.app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.deepEqual(again.json(), first.json());
      });
  });

  describe(`Idempotency-Key on POST /v1/store/orders (${engine})`, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    test('a repeat replays the placed order instead of failing on the now-pending pet', async (t) => {
      const { app, auth } = await testApp(t);
      const pet = (await app.inject(post('/v1/pets', auth, { name: 'Rex', categoryId: 1 }))).json();
      const headers = { ...auth, 'idempotency-key': 'order-1' };
      const first = await app.inject(post('/v1/store/orders', headers, { petId: pet.id }));
      assert.equal(first.statusCode, 201);
      const again = await app.inject(post('/v1/store/orders', headers, { petId: pet.id }));
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.headers.location, first.headers.location);
      assert.deepEqual(again.json(), first.json());
      assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth })).json().length, 1);
      const without = await app.inject(post('/v1/store/orders', auth, { petId: pet.id }));
      assert.equal(without.json().code, 'pet_not_available', 'without the key a repeat is a new order');
      const reused = await app.inject(post('/v1/store/orders', headers, { petId: pet.id + 1 }));
      assert.equal(reused.statusCode, 422);
    });

    test('the same Idempotency-Key on the two operations does not collide', async (t) => {
      const { app, auth } = await testApp(t);
      const headers = { ...auth, 'idempotency-key': 'same' };
      const pet = await app.inject(post('/v1/pets', headers, { name: 'Rex', categoryId: 1 }));
      const order = await app.inject(post('/v1/store/orders', headers, { petId: pet.json().id }));
      assert.equal(order.statusCode, 201);
      assert.equal(order.headers['idempotent-replayed'], undefined);
    });
  });
}
