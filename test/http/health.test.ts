// The health log through the real app, on every engine: append (dates, limits, Idempotency-Key),
// read, list newest first with cursors, void once and keep, the due list, events and scopes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { latestToday } from '../../src/calendar.ts';
import { keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { ENGINES, feedSettled } from '../helpers/engines.ts';
import { assertError } from '../helpers/errors.ts';

type Auth = { authorization: string };

const VACCINE = { kind: 'vaccination', date: '2025-03-01', name: 'Nobivac DHPPi', batch: 'A123B45', givenBy: 'Dr. A. Jones', nextDue: '2026-03-01' };

async function newPet(app: FastifyInstance, auth: Auth, name = 'Rex'): Promise<number> {
  const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name, categoryId: 1 } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

function append(app: FastifyInstance, auth: Auth, petId: number, payload: object, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url: `/v1/pets/${petId}/health`, headers: { ...auth, ...headers }, payload });
}

async function added(app: FastifyInstance, auth: Auth, petId: number, payload: object) {
  const res = await append(app, auth, petId, payload);
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: number; date: string; kind: string; nextDue?: string; voided?: { at: string; reason: string } };
}

function voidRecord(app: FastifyInstance, auth: Auth, petId: number, id: number, reason = 'Recorded against the wrong animal') {
  return app.inject({ method: 'POST', url: `/v1/pets/${petId}/health/${id}/void`, headers: auth, payload: { reason } });
}

async function due(app: FastifyInstance, auth: Auth, query: string) {
  const res = await app.inject({ method: 'GET', url: `/v1/health/due?${query}`, headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  return { items: res.json() as { id: number; petId: number; kind: string; nextDue: string }[], next: nextUrl(res.headers.link) };
}

/** The ids of every page of a listing, following Link rel="next" from `url`; each next link keeps the query of `url`. */
async function everyPage(app: FastifyInstance, auth: Auth, url: string): Promise<number[]> {
  const ids: number[] = [];
  for (let next: string | undefined = url; next !== undefined; ) {
    const res: { statusCode: number; body: string; headers: Record<string, unknown>; json(): unknown } = await app.inject({
      method: 'GET',
      url: next,
      headers: auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    ids.push(...(res.json() as { id: number }[]).map((r) => r.id));
    next = nextUrl(res.headers.link);
    if (next !== undefined) assert.ok(next.startsWith(`${url}&cursor=`), next);
  }
  return ids;
}

const nextUrl = (link: unknown) => /<([^>]+)>; rel="next"/.exec(String(link ?? ''))?.[1];

for (const engine of ENGINES) {
  describe(`${engine}: health log`, () => {
    const testApp = sharedTestApp(engine);

    test('appends a record (201, Location), reads it back, and records pet.health.recorded', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const petId = await newPet(app, auth);
      const res = await append(app, auth, petId, { ...VACCINE, notes: '1 ml s.c.' });
      assert.equal(res.statusCode, 201, res.body);
      const record = res.json();
      assert.deepEqual(record, { id: record.id, petId, ...VACCINE, notes: '1 ml s.c.', recordedAt: record.recordedAt });
      assert.match(record.recordedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(res.headers.location, `/v1/pets/${petId}/health/${record.id}`);
      const got = await app.inject({ method: 'GET', url: res.headers.location, headers: auth });
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.json(), record);
      const minimal = await added(app, auth, petId, { kind: 'note', date: '2025-03-02', name: 'Weight', givenBy: 'Sam' });
      assert.deepEqual(Object.keys(minimal), ['id', 'petId', 'kind', 'date', 'name', 'givenBy', 'recordedAt'], 'absent optional fields are left out');

      await feedSettled(storage);
      const events = (await app.inject({ method: 'GET', url: '/v1/events?type=pet.health.recorded', headers: auth })).json();
      assert.deepEqual(
        events.map((e: { data: unknown }) => e.data),
        [record, minimal],
      );
    });

    test('refuses malformed records with 400 naming the field, and stores nothing', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const today = latestToday(new Date());
      const tomorrow = new Date(Date.parse(today) + 86_400_000).toISOString().slice(0, 10);
      const cases: [object, RegExp][] = [
        [{ ...VACCINE, kind: 'surgery' }, /"kind" must be one of: vaccination, deworming, exam, treatment, note/],
        [{ ...VACCINE, date: '2025-02-29' }, /"date" must be a valid date/],
        [{ ...VACCINE, date: '2025-03-01T00:00:00Z' }, /"date" must be a valid date/],
        [{ ...VACCINE, date: tomorrow, nextDue: undefined }, /"date" must not be in the future/],
        [{ ...VACCINE, nextDue: '2025-02-28' }, /"nextDue" must be on or after "date"/],
        [{ ...VACCINE, name: 'x'.repeat(201) }, /"name" must be at most 200 characters/],
        [{ ...VACCINE, givenBy: ' \u200b ' }, /"givenBy" must not be blank/],
        [{ ...VACCINE, batch: '' }, /"batch" must be at least 1 character/],
        [{ ...VACCINE, notes: 'x'.repeat(2001) }, /"notes" must be at most 2000 characters/],
        [{ ...VACCINE, givenBy: undefined }, /"givenBy" is required/],
        [{ ...VACCINE, voided: { at: '2025-03-01T00:00:00Z', reason: 'x' } }, /"voided" is not allowed/],
        [{ ...VACCINE, recordedAt: '2025-03-01T00:00:00Z' }, /"recordedAt" is not allowed/],
      ];
      for (const [payload, message] of cases) assertError(await append(app, auth, petId, payload), 400, 'validation_failed', message);
      assert.equal((await added(app, auth, petId, { ...VACCINE, date: today, nextDue: today })).date, today, 'today (anywhere) is not the future');
      const list = (await app.inject({ method: 'GET', url: `/v1/pets/${petId}/health`, headers: auth })).json();
      assert.equal(list.length, 1);
    });

    test('an unknown or withdrawn animal, or a record of another animal, is 404 on every operation', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const other = await newPet(app, auth, 'Tom');
      const record = await added(app, auth, petId, VACCINE);
      assertError(await app.inject({ method: 'GET', url: `/v1/pets/${other}/health/${record.id}`, headers: auth }), 404, 'not_found');
      assertError(await voidRecord(app, auth, other, record.id), 404, 'not_found');
      assertError(await app.inject({ method: 'GET', url: `/v1/pets/${petId}/health/${record.id + 1}`, headers: auth }), 404, 'not_found');
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${petId}`, headers: auth })).statusCode, 204);
      for (const id of [petId, 999_999]) {
        assertError(await append(app, auth, id, VACCINE), 404, 'not_found', new RegExp(`pet ${id} does not exist`));
        assertError(await app.inject({ method: 'GET', url: `/v1/pets/${id}/health`, headers: auth }), 404, 'not_found');
        assertError(await app.inject({ method: 'GET', url: `/v1/pets/${id}/health/${record.id}`, headers: auth }), 404, 'not_found');
        assertError(await voidRecord(app, auth, id, record.id), 404, 'not_found');
      }
      assertError(await app.inject({ method: 'GET', url: '/v1/pets/0/health', headers: auth }), 400, 'validation_failed');
    });

    test('an Idempotency-Key makes a retry return the first record and append nothing', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const first = await append(app, auth, petId, VACCINE, { 'idempotency-key': 'vacc-1' });
      assert.equal(first.statusCode, 201);
      const again = await append(app, auth, petId, VACCINE, { 'idempotency-key': 'vacc-1' });
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      assert.equal(again.headers.location, first.headers.location);
      assertError(await append(app, auth, petId, { ...VACCINE, batch: 'other' }, { 'idempotency-key': 'vacc-1' }), 422, 'idempotency_key_reused');
      assert.equal((await app.inject({ method: 'GET', url: `/v1/pets/${petId}/health`, headers: auth })).json().length, 1);
    });

    test('voiding keeps the record with its reason; a second void is 409 already_voided; pet.health.voided is recorded', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const petId = await newPet(app, auth);
      const record = await added(app, auth, petId, VACCINE);
      assertError(await voidRecord(app, auth, petId, record.id, ''), 400, 'validation_failed', /"reason"/);
      const res = await voidRecord(app, auth, petId, record.id);
      assert.equal(res.statusCode, 200, res.body);
      const voided = res.json();
      assert.deepEqual(voided, { ...record, voided: { at: voided.voided.at, reason: 'Recorded against the wrong animal' } });
      assertError(await voidRecord(app, auth, petId, record.id, 'again'), 409, 'already_voided', /voided at/);
      const list = (await app.inject({ method: 'GET', url: `/v1/pets/${petId}/health`, headers: auth })).json();
      assert.deepEqual(list, [voided], 'the voided record stays in the log, as it was voided the first time');
      await feedSettled(storage);
      const events = (await app.inject({ method: 'GET', url: '/v1/events?type=pet.health.voided', headers: auth })).json();
      assert.deepEqual(
        events.map((e: { data: unknown }) => e.data),
        [voided],
      );
    });

    test('lists the log latest date first (same day: later written first), paged with Link rel="next"', async (t) => {
      const { app, auth } = await testApp(t);
      const petId = await newPet(app, auth);
      const other = await newPet(app, auth, 'Tom');
      await added(app, auth, other, VACCINE);
      const dates = ['2025-01-10', '2025-03-05', '2024-12-31', '2025-03-05', '2025-02-01'];
      const ids = [];
      for (const date of dates) ids.push((await added(app, auth, petId, { ...VACCINE, date, nextDue: undefined })).id);
      const expected = [ids[3], ids[1], ids[4], ids[0], ids[2]];
      assert.deepEqual(await everyPage(app, auth, `/v1/pets/${petId}/health?limit=2`), expected);
      const page = await app.inject({ method: 'GET', url: `/v1/pets/${petId}/health?limit=2`, headers: auth });
      const cursor = new URL(nextUrl(page.headers.link)!, 'http://x').searchParams.get('cursor');
      assertError(await app.inject({ method: 'GET', url: `/v1/pets/${other}/health?cursor=${cursor}`, headers: auth }), 400, 'invalid_cursor');
    });

    test("the due list: each animal's latest live record of a kind with nextDue before the date, earliest first, paged", async (t) => {
      const { app, auth } = await testApp(t);
      const [rex, tom, kit, gone] = [
        await newPet(app, auth, 'Rex'),
        await newPet(app, auth, 'Tom'),
        await newPet(app, auth, 'Kit'),
        await newPet(app, auth, 'Gone'),
      ];
      const rexVaccine = await added(app, auth, rex, { ...VACCINE, date: '2025-01-01', nextDue: '2025-06-01' });
      const rexWorm = await added(app, auth, rex, { kind: 'deworming', date: '2025-01-01', name: 'Milbemax', givenBy: 'Sam', nextDue: '2025-04-01' });
      const tomVaccine = await added(app, auth, tom, { ...VACCINE, date: '2025-02-01', nextDue: '2025-05-01' });
      await added(app, auth, kit, { ...VACCINE, date: '2025-02-01', nextDue: '2025-12-01' });
      await added(app, auth, gone, { ...VACCINE, date: '2024-12-01', nextDue: '2025-01-02' });
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${gone}`, headers: auth })).statusCode, 204);
      // A record written later about an earlier day does not replace the latest one.
      await added(app, auth, tom, { ...VACCINE, date: '2024-06-01', nextDue: '2025-01-15' });

      const list = await due(app, auth, 'before=2025-07-01');
      assert.deepEqual(
        list.items.map((r) => r.id),
        [rexWorm.id, tomVaccine.id, rexVaccine.id],
      );
      assert.deepEqual(
        (await due(app, auth, 'before=2025-05-01')).items.map((r) => r.id),
        [rexWorm.id],
        'before is exclusive',
      );

      // Paging: one at a time, the next link keeps `before`.
      assert.deepEqual(await everyPage(app, auth, '/v1/health/due?before=2025-07-01&limit=1'), [rexWorm.id, tomVaccine.id, rexVaccine.id]);

      // A later vaccination without nextDue takes Rex off the list for vaccinations; voiding it puts him back.
      const booster = await added(app, auth, rex, { ...VACCINE, date: '2025-05-20', nextDue: undefined });
      assert.deepEqual(
        (await due(app, auth, 'before=2025-07-01')).items.map((r) => r.id),
        [rexWorm.id, tomVaccine.id],
      );
      assert.equal((await voidRecord(app, auth, rex, booster.id)).statusCode, 200);
      assert.deepEqual(
        (await due(app, auth, 'before=2025-07-01')).items.map((r) => r.id),
        [rexWorm.id, tomVaccine.id, rexVaccine.id],
      );
      // Voiding the record that set the date falls back to the latest live one before it: none for Rex's worming.
      assert.equal((await voidRecord(app, auth, rex, rexWorm.id)).statusCode, 200);
      assert.deepEqual(
        (await due(app, auth, 'before=2025-07-01')).items.map((r) => r.id),
        [tomVaccine.id, rexVaccine.id],
      );

      assertError(await app.inject({ method: 'GET', url: '/v1/health/due', headers: auth }), 400, 'validation_failed', /"before" is required/);
      assertError(await app.inject({ method: 'GET', url: '/v1/health/due?before=2025-13-01', headers: auth }), 400, 'validation_failed');
      const page = await app.inject({ method: 'GET', url: '/v1/health/due?before=2025-07-01&limit=1', headers: auth });
      const cursor = new URL(nextUrl(page.headers.link)!, 'http://x').searchParams.get('cursor');
      assertError(await app.inject({ method: 'GET', url: `/v1/health/due?before=2025-08-01&cursor=${cursor}`, headers: auth }), 400, 'invalid_cursor');
    });

    test('health:read reads and health:write writes; neither comes with pets:*', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const petId = await newPet(app, auth);
      const record = await added(app, auth, petId, VACCINE);
      const pets = await keyWithScopes(storage, ['pets:read', 'pets:write']);
      const reader = await keyWithScopes(storage, ['health:read']);
      const writer = await keyWithScopes(storage, ['health:write']);
      const reads = [`/v1/pets/${petId}/health`, `/v1/pets/${petId}/health/${record.id}`, '/v1/health/due?before=2030-01-01'];
      for (const url of reads) {
        assertError(await app.inject({ method: 'GET', url, headers: pets }), 403, 'insufficient_scope', /health:read/);
        assertError(await app.inject({ method: 'GET', url, headers: writer }), 403, 'insufficient_scope');
        assert.equal((await app.inject({ method: 'GET', url, headers: reader })).statusCode, 200);
      }
      assertError(await append(app, reader, petId, VACCINE), 403, 'insufficient_scope', /health:write/);
      assertError(await voidRecord(app, pets, petId, record.id), 403, 'insufficient_scope', /health:write/);
      assert.equal((await append(app, writer, petId, VACCINE)).statusCode, 201);
      assert.equal((await voidRecord(app, writer, petId, record.id)).statusCode, 200);
    });

    test('a webhook endpoint takes health:read to subscribe to pet.health.*', async (t) => {
      const { app, storage } = await testApp(t);
      const admin = await keyWithScopes(storage, ['webhooks:admin', 'pets:read']);
      const payload = { url: 'https://hooks.example.com/petstore', events: ['pet.created', 'pet.health.recorded'] };
      assertError(await app.inject({ method: 'POST', url: '/v1/webhooks', headers: admin, payload }), 403, 'insufficient_scope', /health:read/);
    });
  });
}
