// API keys over the API, through the real app, on every engine: issuing (least privilege,
// expiry), listing, revoking, and the sealed idempotent replay of a new key's secret.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { DEFAULT_SCOPES } from '../../src/keys/key.types.ts';
import { openPostgres } from '../../src/storage/postgres/postgres.storage.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { buildTestApp, fixedClock, keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { createTestDatabase, ENGINES, type Engine } from '../helpers/engines.ts';

type Auth = { authorization: string };
const KEY = /^pst_[A-Za-z0-9_-]{43}$/;

const createKey = (app: FastifyInstance, auth: Auth, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/v1/keys', headers: { ...auth, 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** A storage whose raw bytes or rows the test can read afterwards: everything the database holds, as text. */
async function inspectableStorage(t: TestContext, engine: Engine): Promise<{ storage: Storage; everything(): Promise<string> }> {
  if (engine === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-keys-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const storage = openSqlite({ path: join(dir, 'p.db') });
    t.after(() => storage.close());
    return {
      storage,
      everything: async () =>
        readdirSync(dir)
          .map((f) => readFileSync(join(dir, f)).toString('latin1'))
          .join('\n'),
    };
  }
  const db = await createTestDatabase();
  t.after(() => db.drop());
  const storage = await openPostgres({ url: db.url, poolSize: 2 });
  t.after(() => storage.close());
  return {
    storage,
    async everything() {
      const client = new pg.Client(db.url);
      await client.connect();
      try {
        const tables = ['api_keys', 'idempotency_keys', 'events'];
        const rows = await Promise.all(tables.map((table) => client.query(`SELECT * FROM ${table}`)));
        return JSON.stringify(rows.map((r) => r.rows));
      } finally {
        await client.end();
      }
    },
  };
}

for (const engine of ENGINES) {
  describe(`${engine}: keys over the API`, () => {
    // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
    const testApp = sharedTestApp(engine);
    test('createKey → 201 with the secret once and Location; the new key can do what its scopes allow, nothing more', async (t) => {
      const { app, auth } = await testApp(t);
      const res = await createKey(app, auth, { name: 'shop front', scopes: ['pets:read', 'orders:write'] });
      assert.equal(res.statusCode, 201, res.body);
      const created = res.json();
      assert.deepEqual(Object.keys(created).sort(), ['createdAt', 'expiresAt', 'id', 'key', 'name', 'owner', 'parentId', 'prefix', 'revokedAt', 'scopes']);
      assert.match(created.key, KEY);
      assert.equal(created.prefix, created.key.slice(0, 8));
      assert.deepEqual(created.scopes, ['pets:read', 'orders:write']);
      assert.equal(created.expiresAt, null);
      assert.equal(created.revokedAt, null);
      assert.equal(res.headers.location, `/v1/keys/${created.id}`);
      const key = bearer(created.key);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: key })).statusCode, 200);
      assert.equal((await app.inject({ method: 'POST', url: '/v1/pets', headers: key, payload: { name: 'x', categoryId: 1 } })).statusCode, 403);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/keys', headers: key })).statusCode, 403);
      const shown = await app.inject({ method: 'GET', url: `/v1/keys/${created.id}`, headers: auth });
      const { key: _secret, ...info } = created;
      assert.deepEqual(shown.json(), info, 'getKey shows everything but the secret');
    });

    test('without scopes a key gets the default set, which never holds keys:admin', async (t) => {
      const { app, auth } = await testApp(t);
      const created = (await createKey(app, auth, { name: 'staff' })).json();
      assert.deepEqual(created.scopes, [...DEFAULT_SCOPES]);
      assert.ok(!created.scopes.includes('keys:admin'));
      const admin = (await createKey(app, auth, { name: 'deputy', scopes: ['keys:admin'] })).json();
      assert.deepEqual(admin.scopes, ['keys:admin']);
    });

    test('a key cannot grant a scope it lacks (403 insufficient_scope, nothing created); a keys:admin-only key can issue keys:admin', async (t) => {
      const { app, storage } = await testApp(t);
      const admin = await keyWithScopes(storage, ['keys:admin', 'pets:read']);
      const before = (await app.inject({ method: 'GET', url: '/v1/keys', headers: admin })).json().length;
      for (const payload of [{ name: 'x', scopes: ['pets:write'] }, { name: 'x', scopes: ['pets:read', 'orders:read'] }, { name: 'x' }]) {
        const res = await createKey(app, admin, payload);
        assert.equal(res.statusCode, 403, JSON.stringify(payload));
        assert.equal(res.json().code, 'insufficient_scope');
        assert.match(res.json().message, /cannot grant .*a key can only grant scopes it holds itself/);
        assert.match(String(res.headers['www-authenticate']), /error="insufficient_scope"/);
      }
      assert.equal((await app.inject({ method: 'GET', url: '/v1/keys', headers: admin })).json().length, before);
      assert.equal((await createKey(app, admin, { name: 'reader', scopes: ['pets:read', 'keys:admin'] })).statusCode, 201);
      const noAdmin = await keyWithScopes(storage, ['pets:read', 'pets:write']);
      assert.equal((await createKey(app, noAdmin, { bogus: true })).statusCode, 403, 'the scope is checked before the body');
      assert.equal((await createKey(app, {} as Auth, { bogus: true })).statusCode, 401);
    });

    const invalid: Array<[string, unknown, RegExp]> = [
      ['no name', { scopes: ['pets:read'] }, /"name" is required/],
      ['a blank name', { name: ' ' }, /must not be blank/],
      ['an unknown scope', { name: 'x', scopes: ['pets:admin'] }, /"scopes.0" must be one of/],
      ['no scopes at all', { name: 'x', scopes: [] }, /"scopes" must have at least 1 item/],
      ['a scope twice', { name: 'x', scopes: ['pets:read', 'pets:read'] }, /must not list the same item twice/],
      ['a date without a time', { name: 'x', expiresAt: '2099-01-01' }, /"expiresAt" must be a valid date-time/],
      ['an offset without a colon', { name: 'x', expiresAt: '2099-01-01T00:00:00+0100' }, /valid date-time/],
      ['no offset', { name: 'x', expiresAt: '2099-01-01T00:00:00' }, /valid date-time/],
      ['a day that does not exist', { name: 'x', expiresAt: '2099-02-30T00:00:00Z' }, /valid date-time/],
      ['a leap second', { name: 'x', expiresAt: '2098-12-31T23:59:60Z' }, /valid date-time/],
      ['an instant in the past', { name: 'x', expiresAt: '2020-01-01T00:00:00Z' }, /"expiresAt" must be in the future/],
      ['an unknown field', { name: 'x', key: 'pst_mine' }, /"key" is not allowed/],
    ];
    for (const [what, payload, message] of invalid) {
      test(`createKey refuses ${what} with 400 validation_failed`, async (t) => {
        const { app, auth } = await testApp(t);
        const res = await createKey(app, auth, payload);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().code, 'validation_failed');
        assert.match(res.json().message, message);
      });
    }

    test('an expiring key works until expiresAt and is refused from that instant, like a revoked key (the clock moves, the database does not)', async (t) => {
      const clock = fixedClock(new Date('2026-09-01T12:00:00.000Z'));
      const { app, auth } = await buildTestApp(t, { engine, clock });
      const res = await createKey(app, auth, { name: 'temp', scopes: ['pets:read'], expiresAt: '2026-09-01T14:00:00+01:00' });
      assert.equal(res.statusCode, 201, res.body);
      const created = res.json();
      assert.equal(created.expiresAt, '2026-09-01T13:00:00.000Z', 'stored in UTC');
      const key = bearer(created.key);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: key })).statusCode, 200);
      clock.set(new Date('2026-09-01T12:59:59.999Z'));
      assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: key })).statusCode, 200);
      clock.set(new Date('2026-09-01T13:00:00.000Z'));
      const refused = await app.inject({ method: 'GET', url: '/v1/pets', headers: key });
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.headers['www-authenticate'], 'Bearer realm="petstore", error="invalid_token"');
      assert.equal(refused.json().message, 'API key is unknown, revoked or expired');
      assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).statusCode, 200, 'other keys still work');
      const now = await createKey(app, auth, { name: 'x', expiresAt: '2026-09-01T13:00:00Z' });
      assert.equal(now.statusCode, 400, 'an expiry at the present instant is not in the future');
    });

    test('listKeys pages by id with Link rel="next"; revoked keys are listed with revokedAt; never a secret or a hash', async (t) => {
      const { app, auth, key } = await testApp(t);
      const made = [];
      for (let i = 0; i < 3; i++) made.push((await createKey(app, auth, { name: `k${i}`, scopes: ['pets:read'] })).json());
      await app.inject({ method: 'DELETE', url: `/v1/keys/${made[1].id}`, headers: auth });
      const first = await app.inject({ method: 'GET', url: '/v1/keys?limit=2', headers: auth });
      assert.equal(first.json().length, 2);
      const next = /^<([^>]+)>; rel="next"$/.exec(String(first.headers.link))![1];
      assert.match(next, /^\/v1\/keys\?limit=2&cursor=/);
      const second = await app.inject({ method: 'GET', url: next, headers: auth });
      assert.equal(second.headers.link, undefined);
      const all = [...first.json(), ...second.json()];
      assert.deepEqual(
        all.map((k: { name: string }) => k.name),
        ['test', 'k0', 'k1', 'k2'],
      );
      assert.ok(all[2].revokedAt !== null && all[1].revokedAt === null);
      const text = first.body + second.body;
      for (const secret of [key, ...made.map((m) => m.key)]) assert.ok(!text.includes(secret.slice(8)), 'no secret');
      assert.doesNotMatch(text, /"key"|"hash"|[0-9a-f]{64}/);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/keys/999', headers: auth })).statusCode, 404);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/keys?cursor=abc.def', headers: auth })).json().code, 'invalid_cursor');
    });

    test('revokeKey → 204; the key is refused from the next request on; again → 204; unknown → 404; a key may revoke itself', async (t) => {
      const { app, auth } = await testApp(t);
      const victim = (await createKey(app, auth, { name: 'leaked', scopes: ['pets:read'] })).json();
      assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: bearer(victim.key) })).statusCode, 200);
      const res = await app.inject({ method: 'DELETE', url: `/v1/keys/${victim.id}`, headers: auth });
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, '');
      assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: bearer(victim.key) })).statusCode, 401);
      const revokedAt = (await app.inject({ method: 'GET', url: `/v1/keys/${victim.id}`, headers: auth })).json().revokedAt;
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/keys/${victim.id}`, headers: auth })).statusCode, 204);
      assert.equal(
        (await app.inject({ method: 'GET', url: `/v1/keys/${victim.id}`, headers: auth })).json().revokedAt,
        revokedAt,
        'a second revocation changes nothing',
      );
      assert.equal((await app.inject({ method: 'DELETE', url: '/v1/keys/999', headers: auth })).statusCode, 404);
      const self = (await createKey(app, auth, { name: 'self', scopes: ['keys:admin'] })).json();
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/keys/${self.id}`, headers: bearer(self.key) })).statusCode, 204);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/keys', headers: bearer(self.key) })).statusCode, 401);
    });

    test('Idempotency-Key on createKey: the replay shows the same secret; the database never holds it in clear', async (t) => {
      const { storage, everything } = await inspectableStorage(t, engine);
      const { app, auth } = await buildTestApp(t, { storage });
      const headers = { 'idempotency-key': 'issue-shop-key' };
      const first = await createKey(app, auth, { name: 'shop', scopes: ['pets:read'] }, headers);
      assert.equal(first.statusCode, 201);
      const again = await createKey(app, auth, { name: 'shop', scopes: ['pets:read'] }, headers);
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.headers.location, first.headers.location);
      assert.deepEqual(again.json(), first.json());
      assert.equal((await app.inject({ method: 'GET', url: '/v1/keys', headers: auth })).json().length, 2, 'one key created');
      const secret: string = first.json().key;
      // A WAL-mode SQLite file may still hold the pages in its -wal file: every file is read.
      const stored = await everything();
      assert.ok(stored.includes(first.json().prefix), "the reading sees what was stored (the key's prefix)");
      assert.ok(!stored.includes(secret.slice(4)), 'the secret is nowhere in the database');
      const other = await keyWithScopes(storage, ['keys:admin', 'pets:read']);
      const foreign = await createKey(app, other, { name: 'shop', scopes: ['pets:read'] }, headers);
      assert.equal(foreign.headers['idempotent-replayed'], undefined, "another key's Idempotency-Key is another key");
      assert.notEqual(foreign.json().key, secret);
    });
  });
}

describe('bootstrap keys (PETSTORE_API_KEYS)', () => {
  test('hold every scope, the admin ones included', async (t) => {
    const bootstrap = { authorization: 'Bearer bootstrap-key-for-tests-0002' };
    const { app } = await buildTestApp(t, { env: { PETSTORE_API_KEYS: 'bootstrap-key-for-tests-0002' } });
    assert.equal((await app.inject({ method: 'GET', url: '/v1/keys', headers: bootstrap })).statusCode, 200);
    const res = await createKey(app, bootstrap, { name: 'admin', scopes: ['keys:admin', 'categories:write'] });
    assert.equal(res.statusCode, 201);
    assert.equal((await app.inject({ method: 'POST', url: '/v1/categories', headers: bootstrap, payload: { name: 'Horses' } })).statusCode, 201);
  });
});
