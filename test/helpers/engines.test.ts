// The engine helper reuses databases between tests; each test must still get one exactly as freshly migrated.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from './app.ts';
import { ENGINES } from './engines.ts';

for (const engine of ENGINES) {
  test(`${engine}: every test gets an empty, freshly migrated database, whoever used it before`, async (t) => {
    const uses: object[] = [];
    for (const use of ['first', 'second']) {
      await t.test(`${use} use`, async (t) => {
        const { app, auth, storage } = await buildTestApp(t, { engine });
        const get = async (url: string) => (await app.inject({ url, headers: auth })).json();
        const state = { categories: await get('/v1/categories'), inventory: await get('/v1/store/inventory'), pets: await get('/v1/pets') };
        const created = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
        const category = await app.inject({ method: 'POST', url: '/v1/categories', headers: auth, payload: { name: 'Horses' } });
        uses.push({ ...state, pet: created.json().id, category: category.json().id, secret: await storage.secret('cursor') });
      });
    }
    const [first, second] = uses as { secret: string }[];
    assert.deepEqual({ ...second, secret: '' }, { ...first, secret: '' }, 'the same seeded rows, no pets, the same next ids');
    assert.notEqual(second.secret, first.secret, 'nothing the first use wrote is left');
  });
}
