// GET /v1/pets?id=…: one or more animals by id, each with its entity tag (`etag`), which If-Match
// accepts — so no client needs the deprecated GET /v1/pets/{petId} (issue 35 §7). Every engine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sharedTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';

type Auth = { authorization: string };

async function create(app: FastifyInstance, auth: Auth, name: string, extra: object = {}): Promise<{ id: number; etag: string }> {
  const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name, categoryId: 1, ...extra } });
  assert.equal(res.statusCode, 201, res.body);
  return { id: res.json().id, etag: String(res.headers.etag) };
}

for (const engine of ENGINES) {
  describe(`${engine}: GET /v1/pets?id=`, () => {
    const testApp = sharedTestApp(engine);

    test('lists the animals named, in id order, each with the ETag its own representation has; unknown and withdrawn ids are left out', async (t) => {
      const { app, auth } = await testApp(t);
      const rex = await create(app, auth, 'Rex');
      const bolt = await create(app, auth, 'Bolt', { status: 'pending' });
      const gone = await create(app, auth, 'Gone');
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${gone.id}`, headers: auth })).statusCode, 204);
      const res = await app.inject({ method: 'GET', url: `/v1/pets?id=${bolt.id}&id=${rex.id}&id=${gone.id}&id=999999`, headers: auth });
      assert.equal(res.statusCode, 200, res.body);
      const items = res.json() as { id: number; name: string; etag: string }[];
      assert.deepEqual(
        items.map(({ id, name, etag }) => ({ id, name, etag })),
        [
          { id: rex.id, name: 'Rex', etag: rex.etag },
          { id: bolt.id, name: 'Bolt', etag: bolt.etag },
        ],
      );
      // One id: the deprecated getPet's replacement, same tag.
      const one = await app.inject({ method: 'GET', url: `/v1/pets?id=${rex.id}`, headers: auth });
      const legacy = await app.inject({ method: 'GET', url: `/v1/pets/${rex.id}`, headers: auth });
      assert.equal(one.json()[0].etag, legacy.headers.etag);
      const { etag, ...pet } = one.json()[0];
      assert.deepEqual(pet, legacy.json(), 'the same representation, with its tag as a member');
      // With status and category filters; sort=-id reverses.
      assert.deepEqual(
        (await app.inject({ method: 'GET', url: `/v1/pets?id=${rex.id}&id=${bolt.id}&status=pending`, headers: auth })).json().map((p: { id: number }) => p.id),
        [bolt.id],
      );
      assert.deepEqual(
        (await app.inject({ method: 'GET', url: `/v1/pets?id=${rex.id}&id=${bolt.id}&sort=-id`, headers: auth })).json().map((p: { id: number }) => p.id),
        [bolt.id, rex.id],
      );
    });

    test('the listed etag is accepted by If-Match; after a change it is refused with 412', async (t) => {
      const { app, auth } = await testApp(t);
      const rex = await create(app, auth, 'Rex');
      const listed = (await app.inject({ method: 'GET', url: `/v1/pets?id=${rex.id}`, headers: auth })).json()[0].etag;
      const patch = (ifMatch: string, name: string) =>
        app.inject({
          method: 'PATCH',
          url: `/v1/pets/${rex.id}`,
          headers: { ...auth, 'content-type': 'application/merge-patch+json', 'if-match': ifMatch },
          payload: { name },
        });
      const changed = await patch(listed, 'Rex II');
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal((await patch(listed, 'Rex III')).statusCode, 412);
      const now = (await app.inject({ method: 'GET', url: `/v1/pets?id=${rex.id}`, headers: auth })).json()[0];
      assert.equal(now.etag, changed.headers.etag);
    });

    test('pages through many ids with the cursor; refuses more than 100, duplicates, a bad id, and id with q or tag', async (t) => {
      const { app, auth } = await testApp(t);
      const ids: number[] = [];
      for (const name of ['a', 'b', 'c', 'd', 'e']) ids.push((await create(app, auth, name)).id);
      const query = ids.map((id) => `id=${id}`).join('&');
      const first = await app.inject({ method: 'GET', url: `/v1/pets?${query}&limit=2`, headers: auth });
      assert.deepEqual(
        first.json().map((p: { id: number }) => p.id),
        ids.slice(0, 2),
      );
      const next = /^<([^>]+)>; rel="next"$/.exec(String(first.headers.link))?.[1];
      assert.ok(next?.includes(`id=${ids[4]}`), 'the next link repeats the ids');
      const second = await app.inject({ method: 'GET', url: next!.replace(/^.*\/v1/, '/v1'), headers: auth });
      assert.deepEqual(
        second.json().map((p: { id: number }) => p.id),
        ids.slice(2, 4),
      );
      const refused = async (url: string) => {
        const res = await app.inject({ method: 'GET', url, headers: auth });
        assert.equal(res.statusCode, 400, url);
        return res.json().errors[0];
      };
      const many = Array.from({ length: 101 }, (_, i) => `id=${i + 1}`).join('&');
      assert.deepEqual(await refused(`/v1/pets?${many}`), { in: 'query', field: 'id', rule: 'maxItems', message: 'must have at most 100 items' });
      assert.equal((await refused(`/v1/pets?id=${ids[0]}&id=${ids[0]}`)).rule, 'uniqueItems');
      assert.deepEqual(await refused('/v1/pets?id=0x3'), { in: 'query', field: 'id[0]', rule: 'type', message: 'must be a whole number' });
      assert.equal((await refused('/v1/pets?id=1&id=0')).field, 'id[1]');
      assert.equal((await refused(`/v1/pets?id=1&q=rex`)).rule, 'exclusive');
      assert.equal((await refused(`/v1/pets?id=1&tag=kids`)).rule, 'exclusive');
      assert.equal((await refused(`/v1/pets?id=1&sort=name`)).rule, 'exclusive');
    });
  });
}
