// The animal's record (issue 36 §1, docs/api.md "The animal's record"): its members round-trip on
// every engine, each rule refuses its malformed value naming the field, a microchip number belongs
// to one live animal (under 50 concurrent creates too), and the record's state is listed and
// enforced as the settings say.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../../src/keys/key.service.ts';
import { recordRule } from '../../src/pets/pet.record.ts';
import { applyRecordRule, RECORD_RULE_SETTING } from '../../src/pets/pet.service.ts';
import { buildTestApp, sharedTestApp } from '../helpers/app.ts';
import { ENGINES, openTestStorage } from '../helpers/engines.ts';
import { assertError } from '../helpers/errors.ts';

type Auth = { authorization: string };

const FULL = {
  breed: { primary: 'Labrador Retriever', mixed: true, secondary: 'Toy Poodle' },
  sex: 'female',
  neutered: true,
  colour: 'Chocolate with a white blaze',
  birthDate: '2026-05-01',
  birthDateEstimated: true,
  microchip: '985112345678903',
  acquiredAt: '2026-07-15',
  source: { kind: 'breeder', name: 'Green Acres Kennels', address: '12 Farm Road, Albany, NY 12207', licence: 'MD-BR-2041' },
} as const;

const create = (app: FastifyInstance, auth: Auth, body: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1, ...body } });
const patch = (app: FastifyInstance, auth: Auth, id: number, body: Record<string, unknown>) =>
  app.inject({ method: 'PATCH', url: `/v1/pets/${id}`, headers: { ...auth, 'content-type': 'application/merge-patch+json' }, payload: body });
const list = async (app: FastifyInstance, auth: Auth, query: string) => {
  const res = await app.inject({ method: 'GET', url: `/v1/pets?${query}`, headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { name: string }[]).map((p) => p.name);
};

/** Each malformed member, and the field its 400 names. */
const MALFORMED: [string, Record<string, unknown>, string][] = [
  ['a breed longer than 100 characters', { breed: { primary: 'x'.repeat(101) } }, 'breed.primary'],
  ['a blank breed', { breed: { primary: '   ' } }, 'breed.primary'],
  ['a breed as a string', { breed: 'Labrador' }, 'breed'],
  ['a second breed of an animal not mixed', { breed: { primary: 'Labrador', secondary: 'Poodle' } }, 'breed.secondary'],
  ['an unknown member of breed', { breed: { primary: 'Labrador', tertiary: 'Pug' } }, 'breed.tertiary'],
  ['an unknown sex', { sex: 'boy' }, 'sex'],
  ['neutered as a string', { neutered: 'yes' }, 'neutered'],
  ['a colour longer than 100 characters', { colour: 'y'.repeat(101) }, 'colour'],
  ['a birth date in the future', { birthDate: '2999-12-25' }, 'birthDate'],
  ['a birth date that does not exist', { birthDate: '2026-02-30' }, 'birthDate'],
  ['a birth date with a time', { birthDate: '2026-02-01T00:00:00Z' }, 'birthDate'],
  ['birthDateEstimated as a string', { birthDateEstimated: 'true' }, 'birthDateEstimated'],
  ['a microchip of 12 digits', { microchip: '985112345678' }, 'microchip'],
  ['a microchip of 15 characters with a letter', { microchip: '98511234567890A' }, 'microchip'],
  ['a microchip as a number', { microchip: 985112345678903 }, 'microchip'],
  ['an acquisition date in the future', { acquiredAt: '2999-01-01' }, 'acquiredAt'],
  ['an acquisition before the birth', { birthDate: '2026-05-01', acquiredAt: '2026-04-30' }, 'acquiredAt'],
  ['an unknown kind of source', { source: { kind: 'pet-shop', name: 'X' } }, 'source.kind'],
  ['a source without a name', { source: { kind: 'breeder', address: '12 Farm Road' } }, 'source.name'],
  ['a source name longer than 200 characters', { source: { kind: 'private', name: 'n'.repeat(201) } }, 'source.name'],
  ['an unknown member of source', { source: { kind: 'private', name: 'A', phone: '555' } }, 'source.phone'],
];

for (const engine of ENGINES) {
  describe(`${engine}: the animal's record`, () => {
    const testApp = sharedTestApp(engine);

    test('every member round-trips: created, listed, changed, removed with null; a microchip is kept normalised', async (t) => {
      const { app, auth } = await testApp(t);
      const res = await create(app, auth, { ...FULL, microchip: '985 112-345.678 903' });
      assert.equal(res.statusCode, 201, res.body);
      const pet = res.json();
      const { microchip: _, ...rest } = FULL;
      for (const [member, value] of Object.entries(rest)) assert.deepEqual(pet[member], value, member);
      assert.equal(pet.microchip, '985112345678903');
      assert.equal(pet.recordComplete, true);
      assert.deepEqual(pet.recordMissing, []);
      const [listed] = (await app.inject({ method: 'GET', url: `/v1/pets?id=${pet.id}`, headers: auth })).json();
      const { etag: _etag, ...read } = listed;
      assert.deepEqual(read, pet);
      // A born-in-store animal names no source; removing members makes the record incomplete again.
      const changed = await patch(app, auth, pet.id, {
        source: { kind: 'born-in-store' },
        breed: { primary: 'Beagle' },
        microchip: '0a0123456b',
        neutered: false,
      });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.deepEqual(changed.json().source, { kind: 'born-in-store' });
      assert.deepEqual(changed.json().breed, { primary: 'Beagle' });
      assert.equal(changed.json().microchip, '0A0123456B');
      assert.equal(changed.json().neutered, false);
      const removed = await patch(app, auth, pet.id, { colour: null, acquiredAt: null, microchip: null, birthDateEstimated: null });
      assert.equal(removed.statusCode, 200, removed.body);
      for (const member of ['colour', 'acquiredAt', 'microchip', 'birthDateEstimated']) assert.equal(member in removed.json(), false, member);
      assert.equal(removed.json().recordComplete, false);
      assert.deepEqual(removed.json().recordMissing, ['acquiredAt', 'colour']);
      const [again] = (await app.inject({ method: 'GET', url: `/v1/pets?id=${pet.id}`, headers: auth })).json();
      assert.deepEqual({ ...again, etag: undefined }, { ...removed.json(), etag: undefined });
    });

    for (const [label, body, field] of MALFORMED) {
      test(`refuses ${label}: 400 naming ${field}, on create and on change`, async (t) => {
        const { app, auth } = await testApp(t);
        const res = await create(app, auth, body);
        assertError(res, 400, 'validation_failed');
        assert.equal(res.json().errors[0].field, field, res.body);
        const id = (await create(app, auth, {})).json().id;
        const changed = await patch(app, auth, id, body);
        assertError(changed, 400, 'validation_failed');
        assert.equal(changed.json().errors[0].field, field, changed.body);
      });
    }

    test('a microchip number is one live animal’s: 409 microchip_in_use naming it only to a key that may read pets; free again once withdrawn', async (t) => {
      const { app, auth, storage } = await testApp(t);
      const first = (await create(app, auth, { microchip: '985112345678903' })).json();
      const taken = await create(app, auth, { microchip: '985-112-345-678-903' });
      assertError(taken, 409, 'microchip_in_use', new RegExp(`animal ${first.id}\\b`));
      const { key } = await createApiKey(storage, 'writer', ['pets:write'], { owner: false });
      const hidden = await create(app, { authorization: `Bearer ${key}` }, { microchip: '985112345678903' });
      assertError(hidden, 409, 'microchip_in_use', /another animal/);
      assert.doesNotMatch(hidden.json().message, new RegExp(`\\b${first.id}\\b`));
      const second = (await create(app, auth, {})).json();
      assertError(await patch(app, auth, second.id, { microchip: '985112345678903' }), 409, 'microchip_in_use');
      assert.equal((await patch(app, auth, first.id, { microchip: '985 112 345 678 903', colour: 'red' })).statusCode, 200, 'its own number again');
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/pets/${first.id}`, headers: auth })).statusCode, 204);
      assert.equal((await patch(app, auth, second.id, { microchip: '985112345678903' })).statusCode, 200);
    });

    test('50 concurrent creates of one microchip number: one 201, 49 × 409 microchip_in_use', async (t) => {
      const { app, auth } = await testApp(t);
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => create(app, auth, { name: `twin ${i}`, microchip: '900 250 000 000 001' })));
      const statuses = results.map((r) => r.statusCode);
      assert.equal(statuses.filter((s) => s === 201).length, 1, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 409).length, 49, JSON.stringify(statuses));
      for (const r of results) if (r.statusCode === 409) assert.equal(r.json().code, 'microchip_in_use');
      assert.equal((await list(app, auth, 'microchip=900250000000001')).length, 1);
    });

    test('GET /pets?microchip= finds the animal by its number, normalised; combines with the other filters and sorts', async (t) => {
      const { app, auth } = await testApp(t);
      await create(app, auth, { name: 'Chip', microchip: '985112345678903', sex: 'male' });
      await create(app, auth, { name: 'Other', microchip: '985112345678904' });
      assert.deepEqual(await list(app, auth, 'microchip=985%20112%20345%20678%20903'), ['Chip']);
      assert.deepEqual(await list(app, auth, 'microchip=985112345678903&sex=male&sort=-name'), ['Chip']);
      assert.deepEqual(await list(app, auth, 'microchip=985112345678903&sex=female'), []);
      assert.deepEqual(await list(app, auth, 'microchip=123456789'), []);
      const bad = await app.inject({ method: 'GET', url: '/v1/pets?microchip=12', headers: auth });
      assertError(bad, 400, 'validation_failed');
      assert.equal(bad.json().errors[0].field, 'microchip');
      // Paged one at a time: the second page after the only match is empty.
      const page = await app.inject({ method: 'GET', url: '/v1/pets?microchip=985112345678903&limit=1', headers: auth });
      const next = /^<([^>]+)>; rel="next"$/.exec(String(page.headers.link))?.[1];
      if (next !== undefined) assert.deepEqual((await app.inject({ method: 'GET', url: next, headers: auth })).json(), []);
    });

    test('recordComplete, sex and breed filter, alone and together, in every sort; q finds breed and colour words', async (t) => {
      const { app, auth } = await testApp(t);
      const complete = { source: { kind: 'born-in-store' }, acquiredAt: '2026-06-01', birthDate: '2026-06-01', colour: 'brindle' };
      await create(app, auth, { name: 'Ada', ...complete, sex: 'female', breed: { primary: 'Toy Poodle' } });
      await create(app, auth, { name: 'Bo', ...complete, sex: 'male', breed: { primary: 'Labrador Retriever', mixed: true, secondary: 'Poodle' } });
      await create(app, auth, { name: 'Cy', sex: 'male', breed: { primary: 'Poodles United' }, colour: 'Crème' });
      await create(app, auth, { name: 'Di' });
      assert.deepEqual(await list(app, auth, 'recordComplete=false'), ['Cy', 'Di']);
      assert.deepEqual(await list(app, auth, 'recordComplete=true&sort=-name'), ['Bo', 'Ada']);
      assert.deepEqual(await list(app, auth, 'sex=male'), ['Bo', 'Cy']);
      // A breed's words, whole, ignoring case and accents: "poodle" is not "Poodles".
      assert.deepEqual(await list(app, auth, 'breed=POODLE'), ['Ada', 'Bo']);
      assert.deepEqual(await list(app, auth, 'breed=toy%20poodle'), ['Ada']);
      assert.deepEqual(await list(app, auth, 'breed=poodle&sex=male&recordComplete=true&sort=-createdAt'), ['Bo']);
      assert.deepEqual(await list(app, auth, 'breed=poodle&sort=-price'), ['Bo', 'Ada']);
      assert.deepEqual(await list(app, auth, 'q=labr'), ['Bo']);
      assert.deepEqual(await list(app, auth, 'q=creme'), ['Cy']);
      for (const sort of ['id', '-id', 'name', '-name', 'price', '-price', 'createdAt', '-createdAt']) {
        const names = await list(app, auth, `recordComplete=false&sex=male&sort=${sort}`);
        assert.deepEqual(names, ['Cy'], sort);
      }
      // id= names the animals itself: the other record filters check them, breed (as tag) is refused with it.
      const ada = (await app.inject({ method: 'GET', url: '/v1/pets?q=ada', headers: auth })).json()[0];
      assert.deepEqual(await list(app, auth, `id=${ada.id}&sex=female&recordComplete=true`), ['Ada']);
      assert.deepEqual(await list(app, auth, `id=${ada.id}&sex=male`), []);
      const named = await app.inject({ method: 'GET', url: `/v1/pets?id=${ada.id}&breed=poodle`, headers: auth });
      assertError(named, 400, 'validation_failed');
      assert.equal(named.json().errors[0].field, 'id');
      for (const query of ['recordComplete=no', 'sex=boy', 'breed=%2A%2A']) {
        const res = await app.inject({ method: 'GET', url: `/v1/pets?${query}`, headers: auth });
        assertError(res, 400, 'validation_failed');
        assert.equal(res.json().errors[0].field, query.split('=')[0]);
      }
      // A breed change moves the animal in the breed filter; a withdrawal takes it out.
      const cy = (await app.inject({ method: 'GET', url: '/v1/pets?q=creme', headers: auth })).json()[0];
      await patch(app, auth, cy.id, { breed: { primary: 'Poodle' } });
      assert.deepEqual(await list(app, auth, 'breed=poodle'), ['Ada', 'Bo', 'Cy']);
      await app.inject({ method: 'DELETE', url: `/v1/pets/${cy.id}`, headers: auth });
      assert.deepEqual(await list(app, auth, 'breed=poodle'), ['Ada', 'Bo']);
    });
  });
}

describe("the store's record settings", () => {
  test('RECORD_ENFORCE_ON_SALE: delivering an order for an animal with an incomplete record → 409 record_incomplete naming the missing fields', async (t) => {
    const { app, auth } = await buildTestApp(t, {
      env: { RECORD_ENFORCE_ON_SALE: 'true', RECORD_REQUIRED_FIELDS: 'colour,sex', RECORD_REQUIRES_MICROCHIP: 'true' },
    });
    const pet = (await create(app, auth, { colour: 'black' })).json();
    assert.deepEqual(pet.recordMissing, ['sex', 'microchip']);
    const order = (await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: pet.id } })).json();
    const move = (status: string) => app.inject({ method: 'PATCH', url: `/v1/store/orders/${order.id}`, headers: auth, payload: { status } });
    assert.equal((await move('approved')).statusCode, 200);
    assertError(await move('delivered'), 409, 'record_incomplete', /lacks sex, microchip/);
    assert.equal((await patch(app, auth, pet.id, { sex: 'male', microchip: '123456789' })).statusCode, 200);
    assert.equal((await move('delivered')).statusCode, 200);
  });

  test('a changed RECORD_REQUIRED_FIELDS restates every animal’s record at start-up; none and unknown members', async (t) => {
    const storage = await openTestStorage(t, 'sqlite');
    const first = await buildTestApp(t, { storage });
    const pet = (await create(first.app, first.auth, { colour: 'black' })).json();
    assert.equal(pet.recordComplete, false);
    const second = await buildTestApp(t, { storage, env: { RECORD_REQUIRED_FIELDS: 'colour' } });
    const [restated] = (await second.app.inject({ method: 'GET', url: `/v1/pets?id=${pet.id}`, headers: second.auth })).json();
    assert.deepEqual([restated.recordComplete, restated.recordMissing, restated.updatedAt], [true, [], pet.updatedAt]);
    assert.deepEqual(await list(second.app, second.auth, 'recordComplete=false'), []);
    const none = await buildTestApp(t, { storage, env: { RECORD_REQUIRED_FIELDS: 'none', RECORD_REQUIRES_MICROCHIP: 'true' } });
    assert.deepEqual(await list(none.app, none.auth, 'recordComplete=false'), ['Rex']);
  });

  test('the rule last applied is kept in the database: a start-up under the same rule reads no animal', async (t) => {
    const storage = await openTestStorage(t, 'sqlite');
    const rule = recordRule(['colour'], false);
    assert.equal(await applyRecordRule(storage, rule), 0, 'an empty store');
    assert.equal(await storage.setting(RECORD_RULE_SETTING), JSON.stringify(rule));
    // A pet whose stored state disagrees with the rule (as an instance under another rule writes
    // it): the same rule again does not read it; another rule does, and the first one again too.
    const { app, auth } = await buildTestApp(t, { storage, env: { RECORD_REQUIRED_FIELDS: 'colour' } });
    const pet = (await create(app, auth, {})).json();
    const lists = t.mock.method(storage.pets, 'list');
    assert.equal(await applyRecordRule(storage, rule), 0);
    assert.equal(lists.mock.callCount(), 0, 'no animal read');
    assert.equal(await applyRecordRule(storage, recordRule(['sex'], false)), 1, `pet ${pet.id} now lacks sex, not colour`);
    assert.ok(lists.mock.callCount() > 0);
    assert.equal(await applyRecordRule(storage, rule), 1, 'and colour again');
  });
});
