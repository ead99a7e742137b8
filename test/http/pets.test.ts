import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import { buildTestApp, fixedClock, sharedTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';
import { NO_RECORD } from '../helpers/pets.ts';

type Auth = { authorization: string };

async function createPets(app: FastifyInstance, auth: Auth, count: number, status = (i: number) => (['available', 'pending', 'sold'] as const)[i % 3]) {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: `pet ${i}`, categoryId: 1 + (i % 6), status: status(i) } });
    assert.equal(res.statusCode, 201, res.body);
    ids.push(res.json().id);
  }
  return ids;
}

function nextUrl(link: string | undefined): string | undefined {
  if (link === undefined) return undefined;
  const m = /^<([^>]+)>; rel="next"$/.exec(link);
  assert.ok(m, `Link header is one rel="next" link: ${link}`);
  return m[1];
}

// The resource behaviour runs on every engine (test/helpers/engines.ts); routing and the SQLite
// file restart below do not depend on the engine.
for (const engine of ENGINES) {
  describe(engine, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    describe('POST /v1/pets', () => {
      test('creates a pet with status defaulting to available, 201 and Location', async (t) => {
        const { app, auth } = await testApp(t);
        const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
        assert.equal(res.statusCode, 201);
        const pet = res.json();
        assert.deepEqual(pet, {
          id: pet.id,
          name: 'Rex',
          categoryId: 1,
          status: 'available',
          tags: [],
          ...NO_RECORD,
          createdAt: pet.createdAt,
          updatedAt: pet.createdAt,
        });
        assert.ok(Math.abs(Date.parse(pet.createdAt) - Date.now()) < 60_000, 'createdAt is the time of creation');
        assert.ok(Number.isSafeInteger(pet.id) && pet.id > 0);
        assert.equal(res.headers.location, `/v1/pets/${pet.id}`);
        assert.match(String(res.headers['content-type']), /^application\/json/);
      });

      test('Location is absolute under PUBLIC_BASE_URL', async (t) => {
        const { app, auth } = await buildTestApp(t, { engine, env: { PUBLIC_BASE_URL: 'https://api.example.com/v1/' } });
        const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
        assert.equal(res.headers.location, `https://api.example.com/v1/pets/${res.json().id}`);
      });

      test('keeps a given status and a name with spaces and unicode as sent', async (t) => {
        const { app, auth } = await testApp(t);
        const res = await app.inject({
          method: 'POST',
          url: '/v1/pets',
          headers: auth,
          payload: { name: '  Mr. Whiskers 🐱 ', categoryId: 2, status: 'pending' },
        });
        assert.equal(res.statusCode, 201);
        assert.equal(res.json().name, '  Mr. Whiskers 🐱 ');
        assert.equal(res.json().status, 'pending');
      });

      test('assigns unique increasing ids', async (t) => {
        const { app, auth } = await testApp(t);
        const ids = await createPets(app, auth, 5);
        assert.deepEqual(
          [...ids].sort((a, b) => a - b),
          ids,
        );
        assert.equal(new Set(ids).size, 5);
      });

      const invalid: Array<[string, unknown, RegExp]> = [
        ['name missing', { categoryId: 1 }, /"name" is required/],
        ['categoryId missing', { name: 'Rex' }, /"categoryId" is required/],
        ['name empty', { name: '', categoryId: 1 }, /"name" must be at least 1 character/],
        ['name blank', { name: '   ', categoryId: 1 }, /"name" must not be blank/],
        ['name blank with line breaks', { name: ' \n\t\r ', categoryId: 1 }, /"name" must not be blank/],
        ['name with a NUL character', { name: 'Rex\u0000', categoryId: 1 }, /"name" must not be blank nor contain the NUL character/],
        ['name only a NUL character', { name: '\u0000', categoryId: 1 }, /"name" must not be blank nor contain the NUL character/],
        ['name too long', { name: 'x'.repeat(101), categoryId: 1 }, /"name" must be at most 100 characters/],
        ['name not a string', { name: 42, categoryId: 1 }, /"name" must be of type string/],
        ['categoryId as string', { name: 'Rex', categoryId: '1' }, /"categoryId" must be of type integer/],
        ['categoryId zero', { name: 'Rex', categoryId: 0 }, /"categoryId" must be >= 1/],
        ['categoryId negative', { name: 'Rex', categoryId: -3 }, /"categoryId" must be >= 1/],
        ['categoryId fractional', { name: 'Rex', categoryId: 1.5 }, /"categoryId" must be of type integer/],
        ['categoryId beyond 2^53', { name: 'Rex', categoryId: 2 ** 53 }, /"categoryId" must be <= 9007199254740991/],
        ['categoryId null', { name: 'Rex', categoryId: null }, /"categoryId" must be of type integer/],
        ['status unknown', { name: 'Rex', categoryId: 1, status: 'lost' }, /"status" must be one of: available, pending, sold/],
        ['unknown field', { name: 'Rex', categoryId: 1, color: 'brown' }, /"color" is not allowed/],
        ['id supplied by the client', { id: 7, name: 'Rex', categoryId: 1 }, /"id" is not allowed/],
        ['body an array', [{ name: 'Rex', categoryId: 1 }], /request body must be a JSON object/],
        ['body a string', 'Rex', /request body must be a JSON object/],
      ];
      for (const [what, payload, message] of invalid) {
        test(`rejects ${what} with 400 validation_failed naming the field`, async (t) => {
          const { app, auth } = await testApp(t);
          const res = await app.inject({
            method: 'POST',
            url: '/v1/pets',
            headers: { ...auth, 'content-type': 'application/json' },
            payload: JSON.stringify(payload),
          });
          assert.equal(res.statusCode, 400, res.body);
          assert.equal(res.json().code, 'validation_failed');
          assert.equal(res.json().status, 400);
          assert.match(res.json().message, message);
          const list = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
          assert.deepEqual(list.json(), [], 'nothing was created');
        });
      }

      test('rejects an unknown categoryId with 400 unknown_category', async (t) => {
        const { app, auth } = await testApp(t);
        const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 999 } });
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().code, 'unknown_category');
        assert.match(res.json().message, /categoryId 999/);
      });

      test('rejects a body that is not JSON with 400 invalid_json', async (t) => {
        const { app, auth } = await testApp(t);
        for (const payload of ['{"name": "Rex",', '{"__proto__": {"x": 1}, "name": "a", "categoryId": 1}', '']) {
          const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: { ...auth, 'content-type': 'application/json' }, payload });
          assert.equal(res.statusCode, 400, payload);
          assert.equal(res.json().code, 'invalid_json', payload);
        }
      });

      test('rejects a missing body with 400', async (t) => {
        const { app, auth } = await testApp(t);
        const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth });
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().code, 'validation_failed');
      });

      test('rejects non-JSON content types with 415', async (t) => {
        const { app, auth } = await testApp(t);
        for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
          const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: { ...auth, 'content-type': type }, payload: 'name=Rex&categoryId=1' });
          assert.equal(res.statusCode, 415, type);
          assert.deepEqual(Object.keys(res.json()).sort(), ['code', 'message', 'status']);
          assert.equal(res.json().code, 'unsupported_media_type');
        }
      });

      test('accepts application/json with a charset parameter', async (t) => {
        const { app, auth } = await testApp(t);
        const res = await app.inject({
          method: 'POST',
          url: '/v1/pets',
          headers: { ...auth, 'content-type': 'application/json; charset=utf-8' },
          payload: '{"name":"Rex","categoryId":1}',
        });
        assert.equal(res.statusCode, 201);
      });

      test('rejects a body over 64 KiB with 413 payload_too_large', async (t) => {
        const { app, auth } = await testApp(t);
        const payload = JSON.stringify({ name: 'x'.repeat(70 * 1024), categoryId: 1 });
        const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: { ...auth, 'content-type': 'application/json' }, payload });
        assert.equal(res.statusCode, 413);
        assert.equal(res.json().code, 'payload_too_large');
      });
    });

    describe('GET /v1/pets', () => {
      test('lists pets ascending by id, 20 by default, no Link when nothing follows', async (t) => {
        const { app, auth } = await testApp(t);
        const ids = await createPets(app, auth, 3);
        const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(
          res.json().map((p: { id: number }) => p.id),
          ids,
        );
        assert.equal(res.headers.link, undefined);
      });

      test('returns an empty array on an empty store', async (t) => {
        const { app, auth } = await testApp(t);
        const res = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), []);
      });

      test('applies the default limit of 20 and the maximum of 100', async (t) => {
        const { app, auth } = await testApp(t);
        await createPets(app, auth, 105);
        assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).json().length, 20);
        assert.equal((await app.inject({ method: 'GET', url: '/v1/pets?limit=100', headers: auth })).json().length, 100);
        assert.equal((await app.inject({ method: 'GET', url: '/v1/pets?limit=1', headers: auth })).json().length, 1);
      });

      for (const limit of ['0', '101', '-5', 'abc', '2.5', '', '1&limit=2']) {
        test(`rejects limit=${limit} with 400 validation_failed`, async (t) => {
          const { app, auth } = await testApp(t);
          const res = await app.inject({ method: 'GET', url: `/v1/pets?limit=${limit}`, headers: auth });
          assert.equal(res.statusCode, 400, res.body);
          assert.equal(res.json().code, 'validation_failed');
          assert.match(res.json().message, /"limit"/);
        });
      }

      test('filters by status and rejects unknown statuses', async (t) => {
        const { app, auth } = await testApp(t);
        await createPets(app, auth, 9);
        for (const status of ['available', 'pending', 'sold']) {
          const res = await app.inject({ method: 'GET', url: `/v1/pets?status=${status}`, headers: auth });
          assert.equal(res.statusCode, 200);
          assert.equal(res.json().length, 3);
          assert.ok(res.json().every((p: { status: string }) => p.status === status));
        }
        for (const status of ['lost', 'AVAILABLE', '']) {
          const res = await app.inject({ method: 'GET', url: `/v1/pets?status=${status}`, headers: auth });
          assert.equal(res.statusCode, 400, status);
          assert.equal(res.json().code, 'validation_failed');
        }
      });

      test('rejects unknown query parameters with 400 (typos would silently drop a filter)', async (t) => {
        const { app, auth } = await testApp(t);
        const res = await app.inject({ method: 'GET', url: '/v1/pets?stauts=sold', headers: auth });
        assert.equal(res.statusCode, 400);
        assert.match(res.json().message, /"stauts" is not supported/);
      });

      test('pages through a few hundred pets by Link rel="next" without duplicates or gaps', async (t) => {
        const { app, auth } = await testApp(t);
        const ids = await createPets(app, auth, 250);
        const seen: number[] = [];
        let url: string | undefined = '/v1/pets?limit=7';
        let pages = 0;
        while (url !== undefined) {
          const res: Awaited<ReturnType<typeof app.inject>> = await app.inject({ method: 'GET', url, headers: auth });
          assert.equal(res.statusCode, 200, res.body);
          const page = res.json() as Array<{ id: number }>;
          assert.ok(page.length <= 7 && page.length > 0);
          seen.push(...page.map((p) => p.id));
          url = nextUrl(res.headers.link as string | undefined);
          if (url) assert.match(url, /^\/v1\/pets\?limit=7&cursor=/);
          pages++;
        }
        assert.equal(pages, Math.ceil(250 / 7));
        assert.deepEqual(seen, ids);
      });

      test('keeps the status filter across pages; the last page has no next link', async (t) => {
        const { app, auth } = await testApp(t);
        const ids = await createPets(app, auth, 60);
        const sold = ids.filter((_, i) => i % 3 === 2);
        const seen: number[] = [];
        let url: string | undefined = '/v1/pets?status=sold&limit=4';
        while (url !== undefined) {
          const res = await app.inject({ method: 'GET', url, headers: auth });
          for (const p of res.json()) {
            assert.equal(p.status, 'sold');
            seen.push(p.id);
          }
          url = nextUrl(res.headers.link as string | undefined);
          if (url) assert.match(url, /[?&]status=sold(&|$)/);
        }
        assert.deepEqual(seen, sold);
      });

      test('a page exactly at the end has no next link', async (t) => {
        const { app, auth } = await testApp(t);
        await createPets(app, auth, 10);
        const first = await app.inject({ method: 'GET', url: '/v1/pets?limit=5', headers: auth });
        const second = await app.inject({ method: 'GET', url: nextUrl(first.headers.link as string)!, headers: auth });
        assert.equal(second.json().length, 5);
        assert.equal(second.headers.link, undefined);
      });

      test('the next link is absolute under PUBLIC_BASE_URL', async (t) => {
        const { app, auth } = await buildTestApp(t, { engine, env: { PUBLIC_BASE_URL: 'https://api.example.com/v1' } });
        await createPets(app, auth, 3);
        const res = await app.inject({ method: 'GET', url: '/v1/pets?limit=2', headers: auth });
        assert.match(String(res.headers.link), /^<https:\/\/api\.example\.com\/v1\/pets\?limit=2&cursor=[^>]+>; rel="next"$/);
      });

      test('rejects a tampered or foreign cursor with 400 invalid_cursor', async (t) => {
        const { app, auth } = await testApp(t);
        await createPets(app, auth, 9);
        const res = await app.inject({ method: 'GET', url: '/v1/pets?limit=2&status=available', headers: auth });
        const cursor = new URL(nextUrl(res.headers.link as string)!, 'http://x').searchParams.get('cursor')!;
        const flipped = cursor.slice(0, 3) + (cursor[3] === 'A' ? 'B' : 'A') + cursor.slice(4);
        const forged = `${Buffer.from('pets;available\n0').toString('base64url')}.AAAAAAAAAAAAAAAAAAAAAA`;
        for (const url of [
          `/v1/pets?limit=2&status=available&cursor=${flipped}`,
          `/v1/pets?limit=2&status=available&cursor=${forged}`,
          '/v1/pets?cursor=garbage',
          `/v1/pets?limit=2&cursor=${cursor}`, // other filters than the cursor's listing
          `/v1/pets?limit=2&status=sold&cursor=${cursor}`,
          `/v1/store/orders?cursor=${cursor}`, // another listing altogether
        ]) {
          const bad = await app.inject({ method: 'GET', url, headers: auth });
          assert.equal(bad.statusCode, 400, url);
          assert.equal(bad.json().code, 'invalid_cursor', url);
        }
        const ok = await app.inject({ method: 'GET', url: `/v1/pets?limit=5&status=available&cursor=${cursor}`, headers: auth });
        assert.equal(ok.statusCode, 200, 'the limit may change between pages');
      });

      test('a cursor from one store is foreign to another store', async (t) => {
        const a = await buildTestApp(t, { engine });
        const b = await buildTestApp(t, { engine });
        await createPets(a.app, a.auth, 3);
        await createPets(b.app, b.auth, 3);
        const res = await a.app.inject({ method: 'GET', url: '/v1/pets?limit=1', headers: a.auth });
        const bad = await b.app.inject({ method: 'GET', url: nextUrl(res.headers.link as string)!, headers: b.auth });
        assert.equal(bad.json().code, 'invalid_cursor');
      });
    });

    describe('GET /v1/pets/{petId} (deprecated)', () => {
      const sunsetHeader = 'Thu, 05 Dec 2030 00:00:00 GMT';
      const assertDeprecationHeaders = (headers: Record<string, unknown>) => {
        assert.match(String(headers.deprecation), /^@\d+$/);
        assert.equal(headers.deprecation, `@${Date.UTC(2026, 0, 1) / 1000}`);
        assert.equal(headers.sunset, sunsetHeader);
        assert.match(String(headers.link), /<\/v1\/pets>; rel="successor-version"/);
        assert.match(String(headers.link), /<[^>]*\/docs>; rel="deprecation"/);
      };

      test('returns the pet with Deprecation, Sunset and Link headers', async (t) => {
        const { app, auth } = await testApp(t);
        const [id] = await createPets(app, auth, 1);
        const res = await app.inject({ method: 'GET', url: `/v1/pets/${id}`, headers: auth });
        assert.equal(res.statusCode, 200);
        const { createdAt, updatedAt, ...rest } = res.json();
        assert.deepEqual(rest, { id, name: 'pet 0', categoryId: 1, status: 'available', tags: [], ...NO_RECORD });
        assert.equal(createdAt, updatedAt);
        assertDeprecationHeaders(res.headers);
      });

      test('404 not_found for an id that does not exist, with the deprecation headers', async (t) => {
        const { app, auth } = await testApp(t);
        const res = await app.inject({ method: 'GET', url: '/v1/pets/12345', headers: auth });
        assert.equal(res.statusCode, 404);
        assert.deepEqual(res.json(), { code: 'not_found', message: 'pet 12345 does not exist', status: 404 });
        assertDeprecationHeaders(res.headers);
      });

      test('401 responses of the deprecated operation carry the deprecation headers too', async (t) => {
        const { app } = await testApp(t);
        const res = await app.inject({ method: 'GET', url: '/v1/pets/1' });
        assert.equal(res.statusCode, 401);
        assertDeprecationHeaders(res.headers);
      });

      for (const id of ['abc', '-1', '0', '1.5', '9007199254740992', '99999999999999999999999', '1e3x', '%20']) {
        test(`rejects petId=${id} with 400, never 5xx`, async (t) => {
          const { app, auth } = await testApp(t);
          const res = await app.inject({ method: 'GET', url: `/v1/pets/${id}`, headers: auth });
          assert.equal(res.statusCode, 400, res.body);
          assert.equal(res.json().code, 'validation_failed');
          assertDeprecationHeaders(res.headers);
        });
      }

      test('answers 410 gone from the sunset instant on, and 200 just before', async (t) => {
        const clock = fixedClock(new Date('2030-12-04T23:59:59.999Z'));
        const { app, auth } = await buildTestApp(t, { engine, clock });
        const [id] = await createPets(app, auth, 1);
        assert.equal((await app.inject({ method: 'GET', url: `/v1/pets/${id}`, headers: auth })).statusCode, 200);
        for (const at of ['2030-12-05T00:00:00.000Z', '2031-06-01T00:00:00.000Z']) {
          clock.set(new Date(at));
          const res = await app.inject({ method: 'GET', url: `/v1/pets/${id}`, headers: auth });
          assert.equal(res.statusCode, 410, at);
          assert.equal(res.json().code, 'gone');
          assert.equal(res.json().status, 410);
          assertDeprecationHeaders(res.headers);
        }
        // The replacement keeps working.
        assert.equal((await app.inject({ method: 'GET', url: '/v1/pets?status=available', headers: auth })).statusCode, 200);
      });
    });
  });
}

describe('routing errors', () => {
  const testApp = sharedTestApp();
  test('unknown route → 404 not_found with the Error body', async (t) => {
    const { app, auth } = await testApp(t);
    for (const url of ['/v1/nope', '/v1/pets/1/toys', '/nope']) {
      const res = await app.inject({ method: 'GET', url, headers: auth });
      assert.equal(res.statusCode, 404, url);
      assert.deepEqual(Object.keys(res.json()).sort(), ['code', 'message', 'status']);
      assert.equal(res.json().code, 'not_found');
    }
  });

  test('known path with another method → 405 with Allow', async (t) => {
    const { app, auth } = await testApp(t);
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/v1/pets', 'GET, HEAD, POST'],
      ['PUT', '/v1/pets', 'GET, HEAD, POST'],
      ['POST', '/v1/pets/1', 'GET, HEAD, PATCH, DELETE'],
      ['PUT', '/v1/pets/1', 'GET, HEAD, PATCH, DELETE'],
      ['PUT', '/v1/store/orders/1', 'GET, HEAD, PATCH'],
      ['DELETE', '/v1/categories', 'GET, HEAD, POST'],
      ['POST', '/v1/categories/1', 'GET, HEAD, PATCH, DELETE'],
      ['POST', '/v1/store/inventory', 'GET, HEAD'],
      ['PATCH', '/v1/keys', 'GET, HEAD, POST'],
      ['PUT', '/v1/keys/1', 'GET, HEAD, DELETE'],
    ];
    for (const [method, url, allow] of cases) {
      const res = await app.inject({ method: method as 'DELETE', url, headers: auth });
      assert.equal(res.statusCode, 405, `${method} ${url}`);
      assert.equal(res.headers.allow, allow);
      assert.equal(res.json().code, 'method_not_allowed');
    }
  });
});

describe('persistence', () => {
  test('a restart on the same SQLite file keeps every pet', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'nested', 'petstore.db');
    const first = openSqlite({ path });
    const a = await buildTestApp(t, { storage: first });
    const ids = await createPets(a.app, a.auth, 5);
    await a.app.close();
    await first.close();

    const second = openSqlite({ path });
    t.after(() => second.close());
    const b = await buildTestApp(t, { storage: second });
    const res = await b.app.inject({ method: 'GET', url: '/v1/pets', headers: b.auth });
    assert.deepEqual(
      res.json().map((p: { id: number }) => p.id),
      ids,
    );
    const again = await b.app.inject({ method: 'GET', url: '/v1/pets', headers: a.auth });
    assert.equal(again.statusCode, 200, 'keys survive the restart too');
  });
});
