import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { runCli } from '../../src/cli/cli.ts';
import { loadConfig } from '../../src/config.ts';
import { SCOPES, type Scope } from '../../src/keys/key.types.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import { keyWithScopes, sharedTestApp } from '../helpers/app.ts';

interface Operation {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly url: string;
  readonly scope: Scope;
  readonly payload?: object;
}

const HEALTH_RECORD = { kind: 'exam', date: '2025-01-01', name: 'Check-up', givenBy: 'Dr. A. Jones' };

const OPERATIONS: readonly Operation[] = [
  { name: 'listPets', method: 'GET', url: '/v1/pets', scope: 'pets:read' },
  { name: 'createPet', method: 'POST', url: '/v1/pets', scope: 'pets:write', payload: { name: 'Rex', categoryId: 1 } },
  { name: 'getPet', method: 'GET', url: '/v1/pets/1', scope: 'pets:read' },
  { name: 'listCategories', method: 'GET', url: '/v1/categories', scope: 'pets:read' },
  { name: 'listOrders', method: 'GET', url: '/v1/store/orders', scope: 'orders:read' },
  { name: 'placeOrder', method: 'POST', url: '/v1/store/orders', scope: 'orders:write', payload: { petId: 1 } },
  { name: 'getOrder', method: 'GET', url: '/v1/store/orders/1', scope: 'orders:read' },
  { name: 'updateOrder', method: 'PATCH', url: '/v1/store/orders/1', scope: 'orders:write', payload: { status: 'approved' } },
  { name: 'updatePet', method: 'PATCH', url: '/v1/pets/1', scope: 'pets:write', payload: { name: 'Rex II' } },
  { name: 'deletePet', method: 'DELETE', url: '/v1/pets/1', scope: 'pets:write' },
  { name: 'getInventory', method: 'GET', url: '/v1/store/inventory', scope: 'pets:read' },
  { name: 'addHealthRecord', method: 'POST', url: '/v1/pets/1/health', scope: 'health:write', payload: HEALTH_RECORD },
  { name: 'listHealthRecords', method: 'GET', url: '/v1/pets/1/health', scope: 'health:read' },
  { name: 'getHealthRecord', method: 'GET', url: '/v1/pets/1/health/1', scope: 'health:read' },
  { name: 'voidHealthRecord', method: 'POST', url: '/v1/pets/1/health/1/void', scope: 'health:write', payload: { reason: 'wrong animal' } },
  { name: 'listHealthDue', method: 'GET', url: '/v1/health/due?before=2030-01-01', scope: 'health:read' },
  { name: 'createCategory', method: 'POST', url: '/v1/categories', scope: 'categories:write', payload: { name: 'Horses' } },
  { name: 'getCategory', method: 'GET', url: '/v1/categories/1', scope: 'pets:read' },
  { name: 'updateCategory', method: 'PATCH', url: '/v1/categories/2', scope: 'categories:write', payload: { name: 'Kittens' } },
  { name: 'deleteCategory', method: 'DELETE', url: '/v1/categories/6', scope: 'categories:write' },
  { name: 'createKey', method: 'POST', url: '/v1/keys', scope: 'keys:admin', payload: { name: 'helper', scopes: ['keys:admin'] } },
  { name: 'listKeys', method: 'GET', url: '/v1/keys', scope: 'keys:admin' },
  // Key 2 is the scoped key itself: a key manages itself and the keys it made, not key 1 (the owner's).
  { name: 'getKey', method: 'GET', url: '/v1/keys/2', scope: 'keys:admin' },
  { name: 'revokeKey', method: 'DELETE', url: '/v1/keys/2', scope: 'keys:admin' },
];

describe('key scopes', () => {
  // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
  const testApp = sharedTestApp();
  for (const op of OPERATIONS) {
    test(`${op.name} refuses a key without ${op.scope} with 403 insufficient_scope and the challenge naming it`, async (t) => {
      const { app, storage } = await testApp(t);
      const headers = await keyWithScopes(
        storage,
        SCOPES.filter((s) => s !== op.scope),
      );
      const res = await app.inject({ method: op.method, url: op.url, headers, payload: op.payload });
      assert.equal(res.statusCode, 403);
      assert.deepEqual(res.json(), { code: 'insufficient_scope', message: `this API key lacks the scope ${op.scope}`, status: 403 });
      assert.equal(res.headers['www-authenticate'], `Bearer realm="petstore", error="insufficient_scope", scope="${op.scope}"`);
    });

    test(`${op.name} is allowed to a key holding only ${op.scope}`, async (t) => {
      const { app, storage, auth } = await testApp(t);
      // Data for the by-id operations: pet 1 and order 1.
      await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Seed', categoryId: 1 } });
      if (op.name === 'getOrder' || op.name === 'updateOrder')
        await app.inject({ method: 'POST', url: '/v1/store/orders', headers: auth, payload: { petId: 1 } });
      if (op.name === 'getHealthRecord' || op.name === 'voidHealthRecord')
        await app.inject({ method: 'POST', url: '/v1/pets/1/health', headers: auth, payload: HEALTH_RECORD });
      const headers = await keyWithScopes(storage, [op.scope]);
      const res = await app.inject({ method: op.method, url: op.url, headers, payload: op.payload });
      assert.ok([200, 201, 204].includes(res.statusCode), `${op.name}: ${res.statusCode} ${res.body}`);
    });
  }

  test('the scope is checked before the body is validated: a write without the scope is 403 even with a bad body', async (t) => {
    const { app, storage } = await testApp(t);
    const headers = await keyWithScopes(storage, ['pets:read']);
    const res = await app.inject({ method: 'POST', url: '/v1/pets', headers, payload: { nonsense: true } });
    assert.equal(res.statusCode, 403);
  });

  test('keys create --scopes issues a key limited to those scopes', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-scopes-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const env = { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}` };
    let out = '';
    const code = await runCli(['keys', 'create', '--name', 'reader', '--scopes', 'pets:read,orders:read'], env, { out: (s) => (out += s), err: () => {} });
    assert.equal(code, 0);
    const key = /pst_[A-Za-z0-9_-]{43}/.exec(out)?.[0];
    assert.ok(key, out);
    const storage = openSqlite({ path: join(dir, 'db.sqlite') });
    const app = await buildApp({ config: loadConfig(env), storage });
    t.after(async () => {
      await app.close();
      await storage.close();
    });
    const headers = { authorization: `Bearer ${key}` };
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders', headers })).statusCode, 200);
    assert.equal((await app.inject({ method: 'POST', url: '/v1/pets', headers, payload: { name: 'x', categoryId: 1 } })).statusCode, 403);
    assert.equal((await app.inject({ method: 'POST', url: '/v1/store/orders', headers, payload: { petId: 1 } })).statusCode, 403);
  });

  test("the OpenAPI document names each operation's scope", async (t) => {
    const { app } = await testApp(t);
    const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    for (const op of OPERATIONS) {
      const param: Record<string, string> = { pets: 'petId', orders: 'orderId', categories: 'categoryId', keys: 'keyId', health: 'recordId' };
      const path = op.url
        .replace('/v1', '')
        .split('?')[0]
        .replace(/\/(\w+)\/\d+/g, (_, collection: string) => `/${collection}/{${param[collection]}}`);
      const operation = doc.paths[path][op.method.toLowerCase()];
      assert.deepEqual(operation['x-required-scopes'], [op.scope], op.name);
      assert.match(operation.description, new RegExp(`Requires scope \`${op.scope}\``), op.name);
      assert.ok(operation.responses['403'], `${op.name} documents 403`);
    }
  });
});
