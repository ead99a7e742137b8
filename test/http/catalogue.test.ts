// Issue 23 items 1–4 and 6 through the real app, on every engine: the new pet fields, search,
// the tag filter, the sorts with their cursors, and prices on orders and in the inventory.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, fixedClock, sharedTestApp } from '../helpers/app.ts';
import { ENGINES, feedSettled } from '../helpers/engines.ts';
import { NO_RECORD } from '../helpers/pets.ts';

type Auth = { authorization: string };
type Input = Record<string, unknown>;

async function create(app: FastifyInstance, auth: Auth, body: Input) {
  const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { categoryId: 1, ...body } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function get(app: FastifyInstance, auth: Auth, url: string) {
  return app.inject({ method: 'GET', url, headers: auth });
}

/** Every page of a listing, following Link rel="next". */
async function all(app: FastifyInstance, auth: Auth, url: string): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let pages = 0;
  for (let next: string | undefined = url; next !== undefined; pages++) {
    const res = await get(app, auth, next);
    assert.equal(res.statusCode, 200, res.body);
    names.push(...res.json().map((p: { name: string }) => p.name));
    const link = res.headers.link as string | undefined;
    next = link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1];
  }
  return { names, pages };
}

const badRequest = async (app: FastifyInstance, auth: Auth, url: string, pattern: RegExp, code = 'validation_failed') => {
  const res = await get(app, auth, url);
  assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
  assert.equal(res.json().code, code, url);
  assert.match(res.json().message, pattern, url);
};

for (const engine of ENGINES) {
  describe(`${engine}: richer pets`, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    test('createPet keeps description, tags and price; read-only timestamps; PATCH merges and removes with null', async (t) => {
      const clock = fixedClock(new Date('2026-03-01T10:00:00.000Z'));
      const { app, auth, storage } = await buildTestApp(t, { engine, clock });
      const pet = await create(app, auth, { name: 'Rex', description: 'A calm Labrador', tags: ['calm', 'house-trained'], price: { amount: 12_50 } });
      assert.deepEqual(pet, {
        id: pet.id,
        name: 'Rex',
        categoryId: 1,
        status: 'available',
        description: 'A calm Labrador',
        tags: ['calm', 'house-trained'],
        price: { amount: 1250, currency: 'EUR' },
        ...NO_RECORD,
        createdAt: '2026-03-01T10:00:00.000Z',
        updatedAt: '2026-03-01T10:00:00.000Z',
      });
      clock.set(new Date('2026-03-02T10:00:00.000Z'));
      const patch = (body: Input) =>
        app.inject({ method: 'PATCH', url: `/v1/pets/${pet.id}`, headers: { ...auth, 'content-type': 'application/merge-patch+json' }, payload: body });
      const changed = await patch({ price: { amount: 999, currency: 'EUR' }, tags: ['calm'], description: null });
      assert.equal(changed.statusCode, 200, changed.body);
      const { description: _gone, ...kept } = pet;
      assert.deepEqual(changed.json(), { ...kept, tags: ['calm'], price: { amount: 999, currency: 'EUR' }, updatedAt: '2026-03-02T10:00:00.000Z' });
      const unpriced = await patch({ price: null, tags: null });
      assert.deepEqual(unpriced.json().tags, []);
      assert.equal('price' in unpriced.json(), false);
      assert.equal((await patch({ createdAt: '2020-01-01T00:00:00.000Z' })).statusCode, 400, 'createdAt is read-only');
      await feedSettled(storage);
      const events = (await get(app, auth, '/v1/events?type=pet.updated')).json();
      assert.deepEqual(events.at(-1).data, unpriced.json(), 'events carry the new fields');
    });

    test('refuses bad fields with 400 naming them, without coercion', async (t) => {
      const { app, auth } = await testApp(t);
      const cases: [Input, RegExp][] = [
        [{ description: 'x'.repeat(2001) }, /"description" must be at most 2000/],
        [{ description: ' ' }, /"description" must not be blank/],
        [{ tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, /"tags" must have at most 10 items/],
        [{ tags: ['a', 'a'] }, /"tags" must not list the same item twice/],
        [{ tags: ['Upper'] }, /"tags.0" must match/],
        [{ tags: ['x'.repeat(33)] }, /"tags.0" must be at most 32/],
        [{ price: { amount: -1 } }, /"price.amount" must be >= 0/],
        [{ price: { amount: 1.5 } }, /"price.amount" must be of type integer/],
        [{ price: { amount: '100' } }, /"price.amount" must be of type integer/],
        [{ price: 100 }, /"price" must be of type object/],
        [{ price: { amount: 1, currency: 'USD' } }, /body field "price.currency" must be EUR/],
        [{ createdAt: '2026-01-01T00:00:00.000Z' }, /"createdAt" is not allowed/],
      ];
      for (const [body, message] of cases) {
        const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1, ...body } });
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(res.json().code, 'validation_failed');
        assert.match(res.json().message, message, JSON.stringify(body));
      }
    });

    test('STORE_CURRENCY prices new pets; orders keep the price of their placing; inventory values available stock per currency', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine, env: { STORE_CURRENCY: 'CHF' } });
      const a = await create(app, auth, { name: 'a', price: { amount: 1000 } });
      await create(app, auth, { name: 'b', price: { amount: 250, currency: 'CHF' } });
      await create(app, auth, { name: 'c' });
      await create(app, auth, { name: 'd', status: 'sold', price: { amount: 5 } });
      const inventory = async () => (await get(app, auth, '/v1/store/inventory')).json();
      assert.deepEqual(await inventory(), { available: 3, pending: 0, sold: 1, availableValue: { CHF: 1250 } });
      const order = await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: a.id } });
      assert.equal(order.statusCode, 201, order.body);
      assert.deepEqual(order.json().price, { amount: 1000, currency: 'CHF' });
      assert.deepEqual(await inventory(), { available: 2, pending: 1, sold: 1, availableValue: { CHF: 250 } }, 'a pending pet is not available stock');
      const repriced = await app.inject({
        method: 'PATCH',
        url: `/v1/pets/${a.id}`,
        headers: { ...auth, 'content-type': 'application/json' },
        payload: { price: { amount: 2000 } },
      });
      assert.equal(repriced.statusCode, 200, repriced.body);
      assert.deepEqual(
        (await get(app, auth, `/v1/store/orders/${order.json().id}`)).json().price,
        { amount: 1000, currency: 'CHF' },
        'the order keeps its price',
      );
      const unpriced = await app.inject({
        method: 'POST',
        url: '/v1/store/orders',
        headers: auth,
        payload: { petId: (await create(app, auth, { name: 'e' })).id },
      });
      assert.equal('price' in unpriced.json(), false, 'an order for an unpriced pet has no price');
      const cancelled = await app.inject({
        method: 'PATCH',
        url: `/v1/store/orders/${order.json().id}`,
        headers: { ...auth, 'content-type': 'application/json' },
        payload: { status: 'cancelled' },
      });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.deepEqual((await inventory()).availableValue, { CHF: 2250 }, 'back in stock at its new price');
      const withdrawn = await app.inject({ method: 'DELETE', url: `/v1/pets/${a.id}`, headers: auth });
      assert.equal(withdrawn.statusCode, 204);
      assert.deepEqual((await inventory()).availableValue, { CHF: 250 });
    });
  });

  describe(`${engine}: search, tags and sorts`, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    test('q matches every word as a word prefix, ignoring case and accents, in name, description and tags; combines with filters', async (t) => {
      const { app, auth } = await testApp(t);
      await create(app, auth, { name: 'Labrador Rex', tags: ['friendly'] });
      await create(app, auth, { name: 'Émile', description: 'A shy LABRADOR puppy', categoryId: 2 });
      await create(app, auth, { name: 'Zoë', tags: ['golden-retriever', 'friendly'], status: 'sold' });
      await create(app, auth, { name: 'Collab', description: 'no match: collaborates' });
      const names = async (query: string) => (await all(app, auth, `/v1/pets?${query}`)).names;
      assert.deepEqual(await names('q=lab'), ['Labrador Rex', 'Émile']);
      assert.deepEqual(await names('q=LAB%20shy'), ['Émile']);
      assert.deepEqual(await names('q=emile'), ['Émile'], 'accents ignored in the text');
      assert.deepEqual(await names('q=%C3%A9mi'), ['Émile'], 'and in the query');
      assert.deepEqual(await names('q=zoe'), ['Zoë']);
      assert.deepEqual(await names('q=retr'), ['Zoë'], 'tags are searched, split into words');
      assert.deepEqual(await names('q=friendly&status=available'), ['Labrador Rex']);
      assert.deepEqual(await names('q=lab&categoryId=2'), ['Émile']);
      assert.deepEqual(await names('q=friendly&tag=golden-retriever'), ['Zoë']);
      assert.deepEqual(await names('q=lab&sort=-id'), ['Émile', 'Labrador Rex']);
      assert.deepEqual(await names('q=nothing'), []);
      const paged = await all(app, auth, '/v1/pets?q=friendly&limit=1');
      assert.deepEqual(paged, { names: ['Labrador Rex', 'Zoë'], pages: 2 });
    });

    test('tag=a&tag=b lists the pets carrying every tag given; a withdrawn pet or a removed tag leaves it', async (t) => {
      const { app, auth } = await testApp(t);
      const a = await create(app, auth, { name: 'a', tags: ['x', 'y'] });
      await create(app, auth, { name: 'b', tags: ['x'] });
      const c = await create(app, auth, { name: 'c', tags: ['y', 'x', 'z'] });
      const names = async (query: string) => (await all(app, auth, `/v1/pets?${query}`)).names;
      assert.deepEqual(await names('tag=x'), ['a', 'b', 'c']);
      assert.deepEqual(await names('tag=x&tag=y'), ['a', 'c']);
      assert.deepEqual(await names('tag=y&tag=x&sort=-id&limit=1'), ['c', 'a']);
      await app.inject({ method: 'PATCH', url: `/v1/pets/${a.id}`, headers: { ...auth, 'content-type': 'application/json' }, payload: { tags: ['x'] } });
      assert.deepEqual(await names('tag=y'), ['c']);
      await app.inject({ method: 'DELETE', url: `/v1/pets/${c.id}`, headers: auth });
      assert.deepEqual(await names('tag=y'), []);
      assert.deepEqual(await names('tag=x&q=c'), []);
    });

    test('every sort pages with keyset cursors, ties by id; a cursor of one sort is refused under another', async (t) => {
      const clock = fixedClock(new Date('2026-01-01T00:00:00.000Z'));
      const { app, auth } = await buildTestApp(t, { engine, clock });
      const specs: [string, number | undefined, string][] = [
        ['bella', 300, '2026-01-03'],
        ['Ábel', 100, '2026-01-01'],
        ['carl', undefined, '2026-01-02'],
        ['abel', 100, '2026-01-01'],
        ['Dora', 50, '2026-01-05'],
      ];
      for (const [name, amount, day] of specs) {
        clock.set(new Date(`${day}T00:00:00.000Z`));
        await create(app, auth, { name, ...(amount === undefined ? {} : { price: { amount } }), status: name === 'Dora' ? 'sold' : 'available' });
      }
      const sorted = async (sort: string, extra = '') => (await all(app, auth, `/v1/pets?sort=${sort}&limit=2${extra}`)).names;
      assert.deepEqual(await sorted('id'), ['bella', 'Ábel', 'carl', 'abel', 'Dora']);
      assert.deepEqual(await sorted('-id'), ['Dora', 'abel', 'carl', 'Ábel', 'bella']);
      assert.deepEqual(await sorted('name'), ['Ábel', 'abel', 'bella', 'carl', 'Dora'], 'case and accents ignored, ties by id');
      assert.deepEqual(await sorted('-name'), ['Dora', 'carl', 'bella', 'abel', 'Ábel']);
      assert.deepEqual(await sorted('price'), ['Dora', 'Ábel', 'abel', 'bella', 'carl'], 'no price last');
      assert.deepEqual(await sorted('-price'), ['carl', 'bella', 'abel', 'Ábel', 'Dora']);
      assert.deepEqual(await sorted('createdAt'), ['Ábel', 'abel', 'carl', 'bella', 'Dora']);
      assert.deepEqual(await sorted('-createdAt'), ['Dora', 'bella', 'carl', 'abel', 'Ábel']);
      assert.deepEqual(await sorted('price', '&status=available'), ['Ábel', 'abel', 'bella', 'carl']);
      assert.deepEqual(await sorted('-name', '&categoryId=1&status=available'), ['carl', 'bella', 'abel', 'Ábel']);

      const first = await get(app, auth, '/v1/pets?sort=name&limit=1');
      const link = first.headers.link as string;
      assert.match(link, /sort=name/);
      const cursor = new URL(/<([^>]+)>/.exec(link)![1], 'http://x').searchParams.get('cursor')!;
      await badRequest(app, auth, `/v1/pets?sort=price&limit=1&cursor=${cursor}`, /other filters or another sort/, 'invalid_cursor');
      await badRequest(app, auth, `/v1/pets?limit=1&cursor=${cursor}`, /other filters or another sort/, 'invalid_cursor');
    });

    test('refuses bad listing parameters with 400 naming them', async (t) => {
      const { app, auth } = await testApp(t);
      await badRequest(app, auth, '/v1/pets?sort=weight', /"sort" must be one of/);
      await badRequest(app, auth, '/v1/pets?sort=name&sort=id', /"sort" must be given once/);
      await badRequest(app, auth, '/v1/pets?q=', /"q" must be at least 1/);
      await badRequest(app, auth, `/v1/pets?q=${'a'.repeat(201)}`, /"q" must be at most 200/);
      await badRequest(app, auth, `/v1/pets?${Array.from({ length: 11 }, (_, i) => `tag=t${i}`).join('&')}`, /"tag" must have at most 10 items/);
      await badRequest(app, auth, '/v1/pets?tag=Bad', /"tag.0" must match/);
      await badRequest(app, auth, '/v1/pets?tag=', /"tag.0" must be at least 1/);
    });

    test('a search and a tag filter page in every sort, cursors bound to both; a q without a word filters nothing', async (t) => {
      const clock = fixedClock(new Date('2026-01-01T00:00:00.000Z'));
      const { app, auth } = await buildTestApp(t, { engine, clock });
      const specs: [string, number | undefined, string, string[]][] = [
        ['bella lab', 300, '2026-01-03', ['x']],
        ['Ábel lab', 100, '2026-01-01', ['x', 'y']],
        ['carl lab', undefined, '2026-01-02', ['x']],
        ['abel lab', 100, '2026-01-01', []],
        ['Dora lab', 50, '2026-01-05', ['x']],
        ['Eve', 10, '2026-01-04', ['y']],
      ];
      for (const [name, amount, day, tags] of specs) {
        clock.set(new Date(`${day}T00:00:00.000Z`));
        await create(app, auth, { name, tags, ...(amount === undefined ? {} : { price: { amount } }) });
      }
      const sorted = async (query: string) => {
        const { names, pages } = await all(app, auth, `/v1/pets?${query}&limit=2`);
        assert.equal(pages, Math.max(1, Math.ceil(names.length / 2)), `${query}: full pages, no empty one`);
        return names;
      };
      assert.deepEqual(await sorted('q=lab&sort=name'), ['Ábel lab', 'abel lab', 'bella lab', 'carl lab', 'Dora lab']);
      assert.deepEqual(await sorted('q=lab&sort=-name'), ['Dora lab', 'carl lab', 'bella lab', 'abel lab', 'Ábel lab']);
      assert.deepEqual(await sorted('q=lab&sort=price'), ['Dora lab', 'Ábel lab', 'abel lab', 'bella lab', 'carl lab']);
      assert.deepEqual(await sorted('q=lab&sort=-price'), ['carl lab', 'bella lab', 'abel lab', 'Ábel lab', 'Dora lab']);
      assert.deepEqual(await sorted('q=lab&sort=createdAt'), ['Ábel lab', 'abel lab', 'carl lab', 'bella lab', 'Dora lab']);
      assert.deepEqual(await sorted('q=lab&sort=-createdAt'), ['Dora lab', 'bella lab', 'carl lab', 'abel lab', 'Ábel lab']);
      assert.deepEqual(await sorted('tag=x&sort=price'), ['Dora lab', 'Ábel lab', 'bella lab', 'carl lab']);
      assert.deepEqual(await sorted('tag=y&sort=-createdAt'), ['Eve', 'Ábel lab']);
      assert.deepEqual(await sorted('q=lab&tag=x&tag=y&sort=name'), ['Ábel lab']);
      assert.deepEqual(await sorted('q=a&status=available&sort=-name'), ['abel lab', 'Ábel lab']);
      // Punctuation only: every animal has each of its (no) words.
      assert.deepEqual(await sorted('q=%20-!&sort=price'), ['Eve', 'Dora lab', 'Ábel lab', 'abel lab', 'bella lab', 'carl lab']);

      const first = await get(app, auth, '/v1/pets?q=lab&sort=price&limit=1');
      const cursor = new URL(/<([^>]+)>/.exec(first.headers.link as string)![1], 'http://x').searchParams.get('cursor')!;
      await badRequest(app, auth, `/v1/pets?q=lab&sort=-price&limit=1&cursor=${cursor}`, /other filters or another sort/, 'invalid_cursor');
      await badRequest(app, auth, `/v1/pets?q=bel&sort=price&limit=1&cursor=${cursor}`, /other filters or another sort/, 'invalid_cursor');
      await badRequest(app, auth, `/v1/pets?sort=price&limit=1&cursor=${cursor}`, /other filters or another sort/, 'invalid_cursor');
    });
  });
}
