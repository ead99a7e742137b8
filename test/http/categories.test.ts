// Categories over the API, through the real app, on every engine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';

type Auth = { authorization: string };

const create = (app: FastifyInstance, auth: Auth, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/v1/categories', headers: { ...auth, 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });

for (const engine of ENGINES) {
  describe(`${engine}: categories`, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    test('POST → 201 with Location; GET one; the new category is listed and usable by pets', async (t) => {
      const { app, auth } = await testApp(t);
      const res = await create(app, auth, { name: 'Horses' });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(res.json(), { id: 7, name: 'Horses' });
      assert.equal(res.headers.location, '/v1/categories/7');
      assert.deepEqual((await app.inject({ method: 'GET', url: '/v1/categories/7', headers: auth })).json(), { id: 7, name: 'Horses' });
      assert.deepEqual((await app.inject({ method: 'GET', url: '/v1/categories', headers: auth })).json().at(-1), { id: 7, name: 'Horses' });
      const pet = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Bolt', categoryId: 7 } });
      assert.equal(pet.statusCode, 201);
    });

    test('a duplicate name, ignoring case → 409 category_exists, on create and on rename', async (t) => {
      const { app, auth } = await testApp(t);
      for (const name of ['Dogs', 'dOGS']) {
        const res = await create(app, auth, { name });
        assert.equal(res.statusCode, 409);
        assert.equal(res.json().code, 'category_exists');
        assert.match(res.json().message, new RegExp(`"${name}" already exists`));
      }
      const rename = await app.inject({ method: 'PATCH', url: '/v1/categories/2', headers: auth, payload: { name: 'DOGS' } });
      assert.equal(rename.statusCode, 409);
      assert.equal(rename.json().code, 'category_exists');
    });

    const invalid: Array<[string, unknown, RegExp]> = [
      ['no name', {}, /"name" is required/],
      ['an empty name', { name: '' }, /at least 1 character/],
      ['a blank name', { name: ' \t' }, /must not be blank/],
      ['a name with NUL', { name: 'a\u0000' }, /NUL/],
      ['a name too long', { name: 'x'.repeat(101) }, /at most 100 characters/],
      ['an unknown field', { name: 'x', id: 3 }, /"id" is not allowed/],
      ['a name that is no string', { name: 7 }, /of type string/],
    ];
    for (const [what, payload, message] of invalid) {
      test(`POST and PATCH refuse ${what} with 400 validation_failed`, async (t) => {
        const { app, auth } = await testApp(t);
        for (const res of [
          await create(app, auth, payload),
          await app.inject({ method: 'PATCH', url: '/v1/categories/1', headers: auth, payload: payload as object }),
        ]) {
          assert.equal(res.statusCode, 400, res.body);
          assert.equal(res.json().code, 'validation_failed');
          assert.match(res.json().message, message);
        }
        assert.equal((await app.inject({ method: 'GET', url: '/v1/categories', headers: auth })).json().length, 6);
      });
    }

    test('PATCH renames (merge patch or JSON); the pets in it keep it; unknown → 404', async (t) => {
      const { app, auth } = await testApp(t);
      const pet = (await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Tom', categoryId: 2 } })).json();
      const res = await app.inject({
        method: 'PATCH',
        url: '/v1/categories/2',
        headers: { ...auth, 'content-type': 'application/merge-patch+json' },
        payload: '{"name":"Kittens"}',
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { id: 2, name: 'Kittens' });
      assert.equal((await app.inject({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: auth })).json().categoryId, 2);
      assert.equal((await app.inject({ method: 'PATCH', url: '/v1/categories/99', headers: auth, payload: { name: 'x' } })).statusCode, 404);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/categories/99', headers: auth })).statusCode, 404);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/categories/0', headers: auth })).json().code, 'validation_failed');
    });

    test('DELETE → 409 category_in_use while a live pet belongs to it; 204 once none does; then 404 everywhere, the name free', async (t) => {
      const { app, auth } = await testApp(t);
      const horses = (await create(app, auth, { name: 'Horses' })).json();
      const pet = (await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Bolt', categoryId: horses.id } })).json();
      const refused = await app.inject({ method: 'DELETE', url: `/v1/categories/${horses.id}`, headers: auth });
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json().code, 'category_in_use');
      await app.inject({ method: 'DELETE', url: `/v1/pets/${pet.id}`, headers: auth });
      const res = await app.inject({ method: 'DELETE', url: `/v1/categories/${horses.id}`, headers: auth });
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, '');
      assert.equal((await app.inject({ method: 'GET', url: `/v1/categories/${horses.id}`, headers: auth })).statusCode, 404);
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/categories/${horses.id}`, headers: auth })).statusCode, 404);
      const unusable = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'x', categoryId: horses.id } });
      assert.equal(unusable.json().code, 'unknown_category');
      assert.ok(!(await app.inject({ method: 'GET', url: '/v1/categories', headers: auth })).json().some((c: { id: number }) => c.id === horses.id));
      const again = await create(app, auth, { name: 'Horses' });
      assert.equal(again.statusCode, 201);
      assert.ok(again.json().id > horses.id);
    });

    test('Idempotency-Key on POST: a retry replays the category; another body → 422', async (t) => {
      const { app, auth } = await testApp(t);
      const first = await create(app, auth, { name: 'Horses' }, { 'idempotency-key': 'cat-1' });
      const again = await create(app, auth, { name: 'Horses' }, { 'idempotency-key': 'cat-1' });
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.headers.location, first.headers.location);
      assert.deepEqual(again.json(), first.json());
      assert.equal((await create(app, auth, { name: 'Ponies' }, { 'idempotency-key': 'cat-1' })).statusCode, 422);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/categories', headers: auth })).json().length, 7);
    });

    test('writes need categories:write (403, before the body is read); reads need pets:read; no key → 401', async (t) => {
      const { app, storage } = await testApp(t);
      const reader = await keyWithScopes(storage, ['pets:read', 'pets:write']);
      assert.equal((await create(app, reader, { bogus: 1 })).statusCode, 403);
      assert.equal((await app.inject({ method: 'PATCH', url: '/v1/categories/1', headers: reader, payload: { name: 'x' } })).statusCode, 403);
      assert.equal((await app.inject({ method: 'DELETE', url: '/v1/categories/6', headers: reader })).statusCode, 403);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/categories/1', headers: reader })).statusCode, 200);
      assert.equal((await create(app, {} as Auth, { bogus: 1 })).statusCode, 401);
      const writer = await keyWithScopes(storage, ['categories:write']);
      assert.equal((await create(app, writer, { name: 'Horses' })).statusCode, 201);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/categories/1', headers: writer })).statusCode, 403);
    });
  });
}
