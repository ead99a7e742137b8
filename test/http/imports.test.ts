// POST /v1/imports, GET /v1/imports/{id}, POST /v1/imports/{id}/apply through the real app, on
// every engine: the validation report (line, column, the API's code and message), nothing written
// before apply, apply creating and updating with their events, applying twice, the size limit.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES, feedSettled } from '../helpers/engines.ts';
import { eventually } from '../helpers/receiver.ts';
import type { Pet } from '../../src/pets/pet.schemas.ts';

type Auth = { authorization: string };
const JSONL = { 'content-type': 'application/x-ndjson' };
const CSV = { 'content-type': 'text/csv; charset=utf-8' };
// Small, so that the 413 test sends little.
const MAX = 4096;

const upload = (app: FastifyInstance, auth: Auth, body: string, query = '', type: Record<string, string> = JSONL) =>
  app.inject({ method: 'POST', url: `/v1/imports${query}`, headers: { ...auth, ...type }, payload: body });
const lines = (...rows: unknown[]) => rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n');

async function applied(app: FastifyInstance, auth: Auth, id: number) {
  const res = await app.inject({ method: 'POST', url: `/v1/imports/${id}/apply`, headers: auth });
  assert.ok(res.statusCode === 202 || res.statusCode === 200, res.body);
  return eventually(async () => {
    const job = (await app.inject({ method: 'GET', url: `/v1/imports/${id}`, headers: auth })).json();
    return job.state === 'done' ? job : undefined;
  });
}

for (const engine of ENGINES) {
  describe(`${engine}: imports`, () => {
    const testApp = sharedTestApp(engine, { env: { IMPORT_MAX_BYTES: String(MAX) } });

    test('reports each refused row by line and column with the API error; writes nothing; apply creates and updates with events; applying twice changes nothing', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const existing = (await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Old', categoryId: 2 } })).json();
      const chipped = (
        await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Chip', categoryId: 2, microchip: '985112345678903' } })
      ).json();
      const badName = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: '', categoryId: 1 } });
      const file = lines(
        { name: 'Rex', category: 'dogs', tags: ['friendly'], price: { amount: 1999 } },
        { name: '', category: 'Dogs' },
        '',
        { name: 'Bo', category: 'Nope' },
        '{"name": "Max",',
        { id: existing.id, status: 'sold', createdAt: '2020-01-01T00:00:00.000Z' },
        { microchip: '985 112 345 678 903', colour: 'black' },
        { name: 'Twin', categoryId: 1, microchip: '985112345678903' },
        { id: 999_999, name: 'Ghost' },
        { name: 'New chip', category: 'Cats', microchip: '123-456-789' },
        { name: 'Same new chip', category: 'Cats', microchip: '123456789' },
      );
      const res = await upload(app, auth, file);
      assert.equal(res.statusCode, 201, res.body);
      const job = res.json();
      assert.equal(res.headers.location, `/v1/imports/${job.id}`);
      assert.deepEqual(
        { state: job.state, format: job.format, rows: job.rows, valid: job.valid, invalid: job.invalid, created: job.created },
        { state: 'ready', format: 'jsonl', rows: 10, valid: 4, invalid: 6, created: 0 },
      );
      assert.deepEqual(
        job.report.map((r: { line: number; column: string; code: string }) => [r.line, r.column, r.code]),
        [
          [2, 'name', 'validation_failed'],
          [4, 'category', 'unknown_category'],
          [5, '', 'invalid_json'],
          [8, 'microchip', 'validation_failed'],
          [9, 'id', 'not_found'],
          [11, 'microchip', 'microchip_in_use'],
        ],
      );
      // The same message as the API's for the same value.
      assert.equal(job.report[0].message, badName.json().message);
      assert.equal(job.report[0].status, 400);
      const list = async () => (await app.inject({ method: 'GET', url: '/v1/pets?limit=100', headers: auth })).json();
      assert.equal((await list()).length, 2, 'validating writes no animal');

      await feedSettled(storage);
      const eventsBefore = (await app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: auth })).json().length;
      const done = await applied(app, auth, job.id);
      assert.deepEqual([done.created, done.updated, done.unchanged, done.refused], [2, 2, 0, 0]);
      const pets = await list();
      assert.equal(pets.length, 4);
      const rex = pets.find((p: { name: string }) => p.name === 'Rex');
      assert.deepEqual([rex.categoryId, rex.tags, rex.price], [1, ['friendly'], { amount: 1999, currency: 'EUR' }]);
      assert.equal(pets.find((p: { id: number }) => p.id === existing.id).status, 'sold');
      assert.equal(pets.find((p: { id: number }) => p.id === chipped.id).colour, 'black');
      await feedSettled(storage);
      const events = (await app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: auth })).json();
      assert.deepEqual(
        events
          .slice(eventsBefore)
          .map((e: { type: string }) => e.type)
          .sort(),
        ['pet.created', 'pet.created', 'pet.updated', 'pet.updated'],
      );

      const again = await app.inject({ method: 'POST', url: `/v1/imports/${job.id}/apply`, headers: auth });
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual([again.json().created, again.json().updated], [2, 2]);
      // The same file uploaded and applied again: the animals named are unchanged, nothing recorded.
      const second = await applied(
        app,
        auth,
        (await upload(app, auth, lines({ id: existing.id, status: 'sold' }, { microchip: '985112345678903', colour: 'black' }))).json().id,
      );
      assert.deepEqual([second.created, second.updated, second.unchanged], [0, 0, 2]);
      await feedSettled(storage);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: auth })).json().length, events.length);
    });

    test('CSV: GET /pets.csv imports back changing nothing; refusals by line and CSV column with the API error', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const created = async (payload: object) => {
        const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload });
        assert.equal(res.statusCode, 201, res.body);
        return res.json() as Pet;
      };
      await created({
        name: 'Rex, "the" =1+1',
        categoryId: 1,
        description: 'two\nlines, and -minus',
        tags: ['friendly', 'house-trained'],
        price: { amount: 1999 },
        breed: { primary: 'Labrador Retriever', mixed: true, secondary: 'Poodle' },
        sex: 'male',
        neutered: false,
        colour: 'black',
        birthDate: '2026-05-01',
        birthDateEstimated: true,
        microchip: '985112345678903',
        acquiredAt: '2026-06-01',
        source: { kind: 'breeder', name: 'Green Acres', address: '12 Farm Road' },
      });
      await created({ name: 'Bo', categoryId: 2, status: 'pending' });
      const before: Pet[] = (await app.inject({ method: 'GET', url: '/v1/pets?limit=100', headers: auth })).json();
      const exportedRes = await app.inject({ method: 'GET', url: '/v1/pets.csv', headers: auth });
      assert.equal(exportedRes.statusCode, 200, exportedRes.body);
      const exported = exportedRes.body;
      await feedSettled(storage);
      const events = (await app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: auth })).json().length;

      const job = (await upload(app, auth, exported, '', CSV)).json();
      assert.deepEqual([job.state, job.format, job.rows, job.invalid], ['ready', 'csv', 2, 0], JSON.stringify(job.report));
      const done = await applied(app, auth, job.id);
      assert.deepEqual([done.created, done.updated, done.unchanged, done.refused], [0, 0, 2, 0]);
      assert.deepEqual((await app.inject({ method: 'GET', url: '/v1/pets?limit=100', headers: auth })).json(), before);
      await feedSettled(storage);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: auth })).json().length, events, 'no event');

      const badPrice = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Bad', categoryId: 1, price: { amount: -5 } } });
      const file = ['name,category,price.amount,description', 'Max,Dogs,100,"two', 'lines"', 'Bad,Dogs,-5,', 'Odd,Dogs', ',Cats,1,x'].join('\r\n');
      const report = (await upload(app, auth, file, '', CSV)).json();
      assert.deepEqual([report.rows, report.valid, report.invalid], [4, 1, 3]);
      assert.deepEqual(
        report.report.map((r: { line: number; column: string; code: string }) => [r.line, r.column, r.code]),
        [
          [4, 'price.amount', 'validation_failed'],
          [5, '', 'validation_failed'],
          [6, 'name', 'validation_failed'],
        ],
      );
      assert.equal(report.report[0].message, badPrice.json().message);

      const unknown = (await upload(app, auth, 'name,colour,weight\r\nRex,black,3', '', CSV)).json();
      assert.equal(unknown.state, 'failed');
      assert.match(unknown.failure, /line 1: the header names "weight", not a column of an animal/);
    });

    test('refuses a file over IMPORT_MAX_BYTES with 413, another media type with 415, and categories to create without categories:write', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const big = await upload(
        app,
        auth,
        lines(...Array.from({ length: 100 }, (_, i) => ({ name: `Pet ${i}`, category: 'Dogs', description: 'x'.repeat(40) }))),
      );
      assert.equal(big.statusCode, 413, big.body);
      assert.equal(big.json().code, 'payload_too_large');
      const failed = (await app.inject({ method: 'GET', url: `/v1/imports/${/import (\d+)/.exec(big.json().message)![1]}`, headers: auth })).json();
      assert.equal(failed.state, 'failed');

      const json = await upload(app, auth, '{}', '', { 'content-type': 'application/json' });
      assert.equal(json.statusCode, 415, json.body);

      const notUtf8 = await app.inject({ method: 'POST', url: '/v1/imports', headers: { ...auth, ...JSONL }, payload: Buffer.from([0x7b, 0xff, 0x7d]) });
      assert.equal(notUtf8.statusCode, 201, notUtf8.body);
      assert.deepEqual([notUtf8.json().state, notUtf8.json().failure], ['failed', 'the file cannot be read: the file is not UTF-8 text']);
      assert.equal((await app.inject({ method: 'POST', url: `/v1/imports/${notUtf8.json().id}/apply`, headers: auth })).statusCode, 409);

      const writer = await keyWithScopes(storage, ['pets:write', 'pets:read']);
      const withNew = (await upload(app, writer, lines({ name: 'Nemo', category: 'Corals' }), '?createCategories=true')).json();
      assert.equal(withNew.valid, 1);
      const refused = await app.inject({ method: 'POST', url: `/v1/imports/${withNew.id}/apply`, headers: writer });
      assert.equal(refused.statusCode, 403, refused.body);
      const done = await applied(app, auth, withNew.id);
      assert.equal(done.created, 1);
      const categories = (await app.inject({ method: 'GET', url: '/v1/categories', headers: auth })).json();
      assert.ok(categories.some((c: { name: string }) => c.name === 'Corals'));
    });
  });
}
