// Two service processes on one PostgreSQL database, as behind a load balancer: whatever one instance
// writes the other reads, ids never collide, an order race has one winner across both, and a key
// revoked by the CLI is refused by both on their next request.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiKey } from '../../src/keys/key.service.ts';
import { SCOPES } from '../../src/keys/key.types.ts';
import { openPostgres } from '../../src/storage/postgres/postgres.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.ts';
import { run, startService, type Started } from '../helpers/process.ts';

async function call(
  origin: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> & Record<string, unknown>[] }> {
  const res = await fetch(`${origin}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, body: await res.json() };
}

describe('two instances on one PostgreSQL database', () => {
  let db: TestDatabase;
  let storage: Storage;
  let key: string;
  let a: Started;
  let b: Started;

  before(async () => {
    db = await createTestDatabase();
    storage = await openPostgres({ url: db.url, poolSize: 2 }); // migrates, so the services start on a ready schema
    key = (await createApiKey(storage, 'scaleout', SCOPES)).key;
    const env = { DATABASE_URL: db.url, DATABASE_POOL_SIZE: '10' };
    [a, b] = await Promise.all([startService(env), startService(env)]);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await storage?.close();
    await db?.drop();
  });

  test('a pet created on A is read on B', async () => {
    const created = await call(a.base, key, 'POST', '/pets', { name: 'Rex', categoryId: 1 });
    assert.equal(created.status, 201);
    const read = await call(b.base, key, 'GET', `/pets/${created.body.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created.body);
  });

  test('200 concurrent creates spread over both get 200 distinct ids, each readable from either', async () => {
    const created = await Promise.all(
      Array.from({ length: 200 }, (_, i) => call(i % 2 ? a.base : b.base, key, 'POST', '/pets', { name: `p${i}`, categoryId: 2 })),
    );
    assert.deepEqual(new Set(created.map((r) => r.status)), new Set([201]));
    const ids = created.map((r) => r.body.id as number);
    assert.equal(new Set(ids).size, 200);
    for (const origin of [a.base, b.base]) {
      const reads = await Promise.all(ids.map((id) => call(origin, key, 'GET', `/pets/${id}`)));
      assert.deepEqual(
        reads.map((r) => r.body.id),
        ids,
      );
    }
  });

  test('50 concurrent orders for one pet spread over both: exactly one 201, the rest 409', async () => {
    const pet = (await call(a.base, key, 'POST', '/pets', { name: 'Contested', categoryId: 1 })).body;
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => call(i % 2 ? a.base : b.base, key, 'POST', '/store/orders', { petId: pet.id })));
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 1, `statuses: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 409).length, 49);
    for (const r of results) if (r.status === 409) assert.equal(r.body.code, 'pet_not_available');
    assert.equal((await call(b.base, key, 'GET', `/pets/${pet.id}`)).body.status, 'pending');
  });

  test('a key revoked with the CLI is refused by both instances on their next request', async () => {
    const { key: doomed, info } = await createApiKey(storage, 'doomed', SCOPES);
    for (const origin of [a.base, b.base]) assert.equal((await call(origin, doomed, 'GET', '/pets?limit=1')).status, 200);
    const cli = await run(['src/cli/main.ts', 'keys', 'revoke', String(info.id)], { DATABASE_URL: db.url });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, new RegExp(`key ${info.id} revoked`));
    for (const origin of [a.base, b.base]) {
      const res = await call(origin, doomed, 'GET', '/pets?limit=1');
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'unauthorized');
    }
    assert.equal((await call(a.base, key, 'GET', '/pets?limit=1')).status, 200, 'other keys still work');
  });
});
