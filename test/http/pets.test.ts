import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp } from '../helpers/app.ts';

describe('POST /v1/pets', () => {
  test('creates a pet with status defaulting to available, 201 and Location', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
    assert.equal(res.statusCode, 201);
    const pet = res.json();
    assert.deepEqual(pet, { id: pet.id, name: 'Rex', categoryId: 1, status: 'available' });
    assert.ok(Number.isSafeInteger(pet.id) && pet.id > 0);
    assert.equal(res.headers.location, `/v1/pets/${pet.id}`);
  });

  test('assigns unique increasing ids', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: `p${i}`, categoryId: 2, status: 'sold' } });
      ids.push(res.json().id);
    }
    assert.deepEqual([...ids].sort((a, b) => a - b), ids);
    assert.equal(new Set(ids).size, 5);
  });
});

describe('GET /v1/pets', () => {
  test('lists created pets ascending by id', async (t) => {
    const { app, auth } = await buildTestApp(t);
    for (const name of ['a', 'b', 'c']) await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name, categoryId: 1 } });
    const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().map((p: { name: string }) => p.name), ['a', 'b', 'c']);
    assert.equal(res.headers.link, undefined);
  });
});
