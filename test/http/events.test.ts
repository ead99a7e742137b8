// GET /v1/events through the real app: order, filters, paging, replay with `after`, scope,
// retention, and a reader that pages while events are being written.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Actor, Changes } from '../../src/activity/activity.schemas.ts';
import { EVENT_SCHEMAS, Event, EventTypeSchema } from '../../src/events/event.schemas.ts';
import { Category } from '../../src/categories/category.schemas.ts';
import { HealthRecord } from '../../src/health/health.schemas.ts';
import { Pet, PetStatus, Price } from '../../src/pets/pet.schemas.ts';
import { Order, OrderStatus, SaleMethod } from '../../src/store/order.schemas.ts';
import { Hold, HoldState } from '../../src/holds/hold.schemas.ts';
import { SCOPES } from '../../src/keys/key.types.ts';
import { buildTestApp, fixedClock, keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES, feedSettled, openTestStorage } from '../helpers/engines.ts';
import { eventually } from '../helpers/receiver.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ENV = { RATE_LIMIT_PER_MINUTE: '0' };

/** The documented schema of a feed item, compiled from the same schemas the document is made of. */
function eventValidator() {
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  for (const s of [
    Actor,
    Changes,
    PetStatus,
    Price,
    Pet,
    OrderStatus,
    SaleMethod,
    Order,
    HoldState,
    Hold,
    Category,
    HealthRecord,
    EventTypeSchema,
    ...EVENT_SCHEMAS,
    Event,
  ])
    ajv.addSchema(s);
  return ajv.getSchema('Event')!;
}

async function page(app: FastifyInstance, headers: Record<string, string>, url: string) {
  const res = await app.inject({ method: 'GET', url, headers });
  assert.equal(res.statusCode, 200, res.body);
  return { items: res.json() as { id: string; type: string; data: { id: number } }[], next: /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1] };
}

for (const engine of ENGINES) {
  describe(`${engine}: GET /v1/events`, () => {
    // One app for the tests that need the same one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine, { env: ENV });
    test('lists every change ascending, each item valid against its event schema; filters by type; pages with Link; resumes with after', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const pet = (await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } })).json();
      const order = (await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: pet.id } })).json();
      await app.inject({ method: 'PATCH', url: `/v1/store/orders/${order.id}`, headers: auth, payload: { status: 'cancelled' } });
      await feedSettled(storage);
      const all = await page(app, auth, '/v1/events');
      assert.deepEqual(
        all.items.map((e) => e.type),
        ['pet.created', 'order.placed', 'pet.updated', 'order.cancelled', 'pet.updated'],
      );
      assert.equal(all.next, undefined);
      const valid = eventValidator();
      for (const e of all.items) assert.ok(valid(e), `${e.type}: ${JSON.stringify(valid.errors)}`);
      assert.ok(!valid({ ...all.items[0], data: { id: 1 } }), 'the validator checks data against the type');
      assert.deepEqual(all.items[0].data, pet);

      const first = await page(app, auth, '/v1/events?limit=2&type=pet.updated');
      assert.deepEqual(
        first.items.map((e) => e.type),
        ['pet.updated', 'pet.updated'],
      );
      assert.equal(first.next, undefined, 'exactly two: no next page');
      const two = await page(app, auth, '/v1/events?limit=2');
      assert.deepEqual(two.items, all.items.slice(0, 2));
      assert.match(two.next!, /^\/v1\/events\?limit=2&cursor=/);
      const rest = await page(app, auth, two.next!);
      assert.deepEqual(rest.items, all.items.slice(2, 4));
      const replay = await page(app, auth, `/v1/events?after=${all.items[1].id}`);
      assert.deepEqual(replay.items, all.items.slice(2));
      assert.deepEqual((await page(app, auth, `/v1/events?after=${all.items[4].id}`)).items, []);
    });

    test('a key reads the events of the resources it may read: a type it cannot read is refused (403), the rest left out of full pages', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const pet = (await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } })).json();
      const order = (await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: pet.id } })).json();
      await app.inject({ method: 'PATCH', url: `/v1/store/orders/${order.id}`, headers: auth, payload: { status: 'cancelled' } });
      await app.inject({ method: 'POST', url: '/v1/categories', headers: auth, payload: { name: 'Ponies' } });
      await feedSettled(storage);
      const all = (await page(app, auth, '/v1/events')).items;
      const types = (items: { type: string }[]) => items.map((e) => e.type);
      assert.deepEqual(types(all), ['pet.created', 'order.placed', 'pet.updated', 'order.cancelled', 'pet.updated', 'category.created']);

      const eventsOnly = await keyWithScopes(storage, ['events:read']);
      const refused = await app.inject({ method: 'GET', url: '/v1/events?type=order.placed', headers: eventsOnly });
      assert.equal(refused.statusCode, 403, 'the issue: order data through the feed without orders:read');
      assert.equal(refused.json().code, 'insufficient_scope');
      assert.equal(refused.headers['www-authenticate'], 'Bearer realm="petstore", error="insufficient_scope", scope="orders:read"');
      assert.equal((await app.inject({ method: 'GET', url: '/v1/events?type=pet.created', headers: eventsOnly })).statusCode, 403);
      assert.deepEqual((await page(app, eventsOnly, '/v1/events')).items, [], 'no read scope: nothing to read');

      const petReader = await keyWithScopes(storage, ['events:read', 'pets:read']);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/events?type=order.placed', headers: petReader })).statusCode, 403);
      const readable = all.filter((e) => !e.type.startsWith('order.'));
      assert.deepEqual((await page(app, petReader, '/v1/events')).items, readable);
      assert.deepEqual((await page(app, petReader, '/v1/events?type=category.created')).items, readable.slice(-1));
      // Paged two at a time: full pages of readable events, the cursor moving past the others.
      const seen: unknown[] = [];
      let url: string | undefined = '/v1/events?limit=2';
      const sizes: number[] = [];
      while (url) {
        const p = await page(app, petReader, url);
        seen.push(...p.items);
        sizes.push(p.items.length);
        url = p.next;
      }
      assert.deepEqual(seen, readable);
      assert.deepEqual(sizes, [2, 2]);
      assert.deepEqual((await page(app, petReader, `/v1/events?after=${all[0].id}`)).items, readable.slice(1), 'after an event, readable or not');
      assert.deepEqual((await page(app, petReader, `/v1/events?after=${all[1].id}`)).items, readable.slice(1));

      const orderReader = await keyWithScopes(storage, ['events:read', 'orders:read']);
      assert.deepEqual(types((await page(app, orderReader, '/v1/events')).items), ['order.placed', 'order.cancelled']);
    });

    test("petId lists one animal's history: its pet.*, pet.health.* and order.* events, under the read rule, paged with the filter kept", async (t) => {
      const { app, auth, storage } = await testApp(t);
      const post = async (url: string, payload: object) => (await app.inject({ method: 'POST', url, headers: auth, payload })).json();
      const rex = await post('/v1/pets', { name: 'Rex', categoryId: 1 });
      const tom = await post('/v1/pets', { name: 'Tom', categoryId: 1 });
      const order = await post('/v1/store/orders', { petId: rex.id });
      await post('/v1/store/orders', { petId: tom.id });
      const record = await post(`/v1/pets/${rex.id}/health`, { kind: 'exam', date: '2026-01-02', name: 'Check-up', givenBy: 'Dr. Vet' });
      await post(`/v1/pets/${rex.id}/health/${record.id}/void`, { reason: 'Wrong animal' });
      await post('/v1/categories', { name: 'Ponies' });
      const bo = await post('/v1/pets', { name: 'Bo', categoryId: 1 });
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${bo.id}`, headers: auth })).statusCode, 204);
      await feedSettled(storage);
      const history = (await page(app, auth, `/v1/events?petId=${rex.id}`)).items;
      assert.deepEqual(
        history.map((e) => e.type),
        ['pet.created', 'order.placed', 'pet.updated', 'pet.health.recorded', 'pet.health.voided'],
      );
      assert.equal((history[1].data as unknown as { id: number }).id, order.id);
      assert.deepEqual(
        (await page(app, auth, `/v1/events?petId=${tom.id}`)).items.map((e) => e.type),
        ['pet.created', 'order.placed', 'pet.updated'],
      );
      assert.deepEqual(
        (await page(app, auth, `/v1/events?petId=${bo.id}`)).items.map((e) => e.type),
        ['pet.created', 'pet.deleted'],
        'a withdrawn animal keeps its history',
      );
      assert.deepEqual((await page(app, auth, `/v1/events?petId=${rex.id}&type=pet.updated`)).items, [history[2]]);
      assert.deepEqual((await page(app, auth, '/v1/events?petId=999')).items, []);

      const petReader = await keyWithScopes(storage, ['events:read', 'pets:read']);
      assert.deepEqual(
        (await page(app, petReader, `/v1/events?petId=${rex.id}`)).items,
        [history[0], history[2]],
        'without orders:read and health:read, their events of the animal are left out',
      );
      assert.equal((await app.inject({ method: 'GET', url: `/v1/events?petId=${rex.id}&type=pet.health.recorded`, headers: petReader })).statusCode, 403);

      const first = await page(app, auth, `/v1/events?petId=${rex.id}&limit=2`);
      assert.deepEqual(first.items, history.slice(0, 2));
      assert.match(first.next!, new RegExp(`^/v1/events\\?limit=2&petId=${rex.id}&cursor=`));
      assert.deepEqual((await page(app, auth, first.next!)).items, history.slice(2, 4));
      const other = await app.inject({ method: 'GET', url: first.next!.replace(`petId=${rex.id}`, `petId=${tom.id}`), headers: auth });
      assert.equal(other.json().code, 'invalid_cursor', "a cursor belongs to its animal's history");
      assert.deepEqual((await page(app, auth, `/v1/events?petId=${rex.id}&after=${history[2].id}`)).items, history.slice(3));
      for (const bad of ['0', '-1', 'x', '1.5']) {
        const res = await app.inject({ method: 'GET', url: `/v1/events?petId=${bad}`, headers: auth });
        assert.equal(res.statusCode, 400, bad);
        assert.equal(res.json().code, 'validation_failed', bad);
      }
    });

    test('refuses bad parameters with 400', async (t) => {
      const { app, auth, storage } = await testApp(t);
      await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
      await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Tom', categoryId: 1 } });
      await feedSettled(storage);
      const { next } = await page(app, auth, '/v1/events?limit=1');
      const cursor = next!.split('cursor=')[1];
      for (const [query, code] of [
        ['limit=0', 'validation_failed'],
        ['limit=101', 'validation_failed'],
        ['type=pet.eaten', 'validation_failed'],
        ['after=42', 'validation_failed'],
        ['after=evt_0', 'validation_failed'],
        ['typ=pet.created', 'validation_failed'],
        [`after=evt_1&cursor=${cursor}`, 'validation_failed'],
        [`type=pet.created&cursor=${cursor}`, 'invalid_cursor'],
        ['cursor=abc.def', 'invalid_cursor'],
      ]) {
        const res = await app.inject({ method: 'GET', url: `/v1/events?${query}`, headers: auth });
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.json().code, code, query);
      }
    });

    test('needs events:read, which new keys hold by default', async (t) => {
      const { app, storage } = await testApp(t);
      const without = await keyWithScopes(
        storage,
        SCOPES.filter((s) => s !== 'events:read'),
      );
      assert.equal((await app.inject({ method: 'GET', url: '/v1/events', headers: without })).statusCode, 403);
      const only = await keyWithScopes(storage, ['events:read']);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/events', headers: only })).statusCode, 200);
    });

    test('a reader paging the feed while events are being written misses none and repeats none', async (t) => {
      const { app, auth, storage } = await testApp(t);
      let writing = true;
      const seen: string[] = [];
      const reader = (async () => {
        let after: string | undefined;
        let url = '/v1/events?limit=7';
        for (;;) {
          const done = !writing;
          const p = await page(app, auth, url);
          seen.push(...p.items.map((e) => e.id));
          if (p.items.length > 0) after = p.items.at(-1)!.id;
          if (p.next) url = p.next;
          else if (done) return;
          else url = `/v1/events?limit=7${after ? `&after=${after}` : ''}`;
          // Let the writers' commits run (SQLite commits on setImmediate).
          await new Promise((r) => setImmediate(r));
        }
      })();
      await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: `p${i}`, categoryId: 1 + (i % 6) } }),
        ),
      );
      await feedSettled(storage); // every write in the feed: the reader's last empty page means it has all
      writing = false;
      await reader;
      const all = await page(app, auth, '/v1/events?limit=100');
      const more = await page(app, auth, all.next!);
      const everything = [...all.items, ...more.items].map((e) => e.id);
      assert.equal(everything.length, 120);
      assert.deepEqual(seen, everything);
    });

    test('events older than EVENT_RETENTION_DAYS are purged in the background (at start-up, then hourly)', async (t) => {
      const storage = await openTestStorage(t, engine);
      const clock = fixedClock(new Date('2026-03-01T00:00:00Z'));
      const early = await buildTestApp(t, { storage, clock, env: { ...ENV, EVENT_RETENTION_DAYS: '7' } });
      await early.app.inject({ method: 'POST', url: '/v1/pets', headers: early.auth, payload: { name: 'Old', categoryId: 1 } });
      clock.set(new Date('2026-03-05T00:00:00Z'));
      await early.app.inject({ method: 'POST', url: '/v1/pets', headers: early.auth, payload: { name: 'Newer', categoryId: 1 } });
      await early.app.close();
      clock.set(new Date('2026-03-09T00:00:00Z'));
      const later = await buildTestApp(t, { storage, clock, env: { ...ENV, EVENT_RETENTION_DAYS: '7' } });
      await later.app.ready();
      const names = async () => (await page(later.app, later.auth, '/v1/events')).items.map((e) => (e.data as unknown as { name: string }).name);
      // The purge runs in the background from start-up on.
      await eventually(async () => ((await names()).length === 1 ? true : undefined), 5_000, 'the purge');
      assert.deepEqual(await names(), ['Newer']);
    });
  });
}
