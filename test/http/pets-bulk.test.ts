// POST /v1/pets/bulk through the real app, on every engine: each animal under the single PATCH's
// rules, refusals by id, one pet.updated per changed animal, Idempotency-Key replay, the id limits.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES, feedSettled } from '../helpers/engines.ts';

type Auth = { authorization: string };

const newPet = async (app: FastifyInstance, auth: Auth): Promise<{ id: number; status: string }> => {
  const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
};

const bulk = (app: FastifyInstance, headers: Record<string, string>, payload: unknown) =>
  app.inject({ method: 'POST', url: '/v1/pets/bulk', headers, payload: payload as object });

for (const engine of ENGINES) {
  describe(`${engine}: POST /v1/pets/bulk`, () => {
    const testApp = sharedTestApp(engine);

    test('changes each animal under its own rules, refuses by id, one pet.updated per changed animal, replays on Idempotency-Key', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const [a, b, ordered, same, gone] = [
        await newPet(app, auth),
        await newPet(app, auth),
        await newPet(app, auth),
        await newPet(app, auth),
        await newPet(app, auth),
      ];
      await app.inject({
        method: 'PATCH',
        url: `/v1/pets/${same.id}`,
        headers: { ...auth, 'content-type': 'application/merge-patch+json' },
        payload: { status: 'sold' },
      });
      assert.equal((await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: ordered.id } })).statusCode, 201);
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${gone.id}`, headers: auth })).statusCode, 204);
      await feedSettled(storage);
      const before = (await app.inject({ method: 'GET', url: '/v1/events?type=pet.updated&limit=100', headers: auth })).json().length;
      const missing = 999_999;

      const headers = { ...auth, 'idempotency-key': 'bulk-1' };
      const res = await bulk(app, headers, { ids: [b.id, a.id, ordered.id, same.id, gone.id, missing], patch: { status: 'sold' } });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(
        body.updated.map((p: { id: number; status: string }) => [p.id, p.status]),
        [a.id, b.id, same.id].sort((x, y) => x - y).map((id) => [id, 'sold']),
      );
      assert.deepEqual(
        body.refused.map((r: { id: number; error: { code: string; status: number } }) => [r.id, r.error.code, r.error.status]),
        [
          [ordered.id, 'pet_has_open_order', 409],
          [gone.id, 'not_found', 404],
          [missing, 'not_found', 404],
        ],
      );
      assert.match(body.refused[0].error.message, /open order/);
      const read = await app.inject({ method: 'GET', url: `/v1/pets?id=${ordered.id}`, headers: auth });
      assert.equal(read.json()[0].status, 'pending', 'the ordered animal keeps its status');

      await feedSettled(storage);
      const events = (await app.inject({ method: 'GET', url: '/v1/events?type=pet.updated&limit=100', headers: auth })).json();
      assert.equal(events.length - before, 2, 'one pet.updated per changed animal; none for the one already sold');

      const replay = await bulk(app, headers, { ids: [b.id, a.id, ordered.id, same.id, gone.id, missing], patch: { status: 'sold' } });
      assert.equal(replay.statusCode, 200);
      assert.equal(replay.body, res.body, 'the stored response is replayed');
      const reused = await bulk(app, headers, { ids: [a.id], patch: { status: 'available' } });
      assert.equal(reused.statusCode, 422, reused.body);
      assert.equal(reused.json().code, 'idempotency_key_reused');
    });

    const invalid: Array<[string, unknown]> = [
      ['501 ids', { ids: Array.from({ length: 501 }, (_, i) => i + 1), patch: { status: 'sold' } }],
      ['an id twice', { ids: [1, 2, 1], patch: { status: 'sold' } }],
      ['no ids', { ids: [], patch: { status: 'sold' } }],
      ['an empty patch', { ids: [1], patch: {} }],
      ['an unknown patch field', { ids: [1], patch: { weight: 3 } }],
    ];
    for (const [what, payload] of invalid) {
      test(`refuses ${what} with 400 validation_failed, changing nothing`, async (t) => {
        const { app, auth } = await testApp(t);
        const res = await bulk(app, auth, payload);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().code, 'validation_failed');
      });
    }

    test('needs pets:write', async (t) => {
      const { app, storage } = await testApp(t);
      const reader = await keyWithScopes(storage, ['pets:read']);
      const res = await bulk(app, reader, { ids: [1], patch: { status: 'sold' } });
      assert.equal(res.statusCode, 403, res.body);
    });
  });
}
