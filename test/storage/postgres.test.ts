// What only the PostgreSQL engine has to prove: racing migrations, start-up against an unreachable
// or refusing server, bounded failure and self-recovery when the database stops answering.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import pg from 'pg';
import { readMigrations } from '../../src/storage/migration.ts';
import { StorageUnavailableError } from '../../src/errors.ts';
import { openPostgres } from '../../src/storage/postgres/postgres.storage.ts';
import { createTestDatabase } from '../helpers/engines.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { createPet } from '../../src/pets/pet.service.ts';
import { placeOrder } from '../../src/store/order.service.ts';
import { petRecord } from '../helpers/pets.ts';

async function testDatabase(t: import('node:test').TestContext): Promise<string> {
  const db = await createTestDatabase();
  t.after(() => db.drop());
  return db.url;
}

function withPort(url: string, host: string, port: number): string {
  const u = new URL(url);
  u.hostname = host;
  u.port = String(port);
  return u.href;
}

describe('postgres engine', () => {
  test('instances starting together apply each migration exactly once', async (t) => {
    const url = await testDatabase(t);
    const storages = await Promise.all(Array.from({ length: 5 }, () => openPostgres({ url, poolSize: 2 })));
    t.after(() => Promise.all(storages.map((s) => s.close())));
    const client = new pg.Client(url);
    await client.connect();
    const { rows } = await client.query('SELECT version FROM schema_migrations ORDER BY version');
    await client.end();
    assert.deepEqual(
      rows.map((r) => r.version),
      readMigrations('postgres').map((m) => m.version),
    );
    assert.equal((await storages[4].categories.list()).length, 6);
  });

  test('start-up against a port nobody listens on retries for the window, then fails naming the server but not the password', async () => {
    const port = await closedPort();
    const url = `postgres://petstore:s3cret-pw@127.0.0.1:${port}/petstore`;
    const started = Date.now();
    await assert.rejects(openPostgres({ url, poolSize: 2, startupRetryMs: 800 }), (err: Error) => {
      assert.match(err.message, new RegExp(`^PostgreSQL at 127\\.0\\.0\\.1:${port}/petstore unreachable after [2-9] attempts: .*ECONNREFUSED`));
      assert.doesNotMatch(err.message, /s3cret-pw/);
      return true;
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 500 && elapsed < 3000, `gave up after ${elapsed} ms`);
  });

  test('start-up with a wrong password fails at once, without retrying', async (t) => {
    const url = new URL(await testDatabase(t));
    url.password = 'wrong-password';
    const started = Date.now();
    await assert.rejects(
      openPostgres({ url: url.href, poolSize: 2, startupRetryMs: 10_000 }),
      /^Error: PostgreSQL at 127\.0\.0\.1:\d+\/postgres could not be opened: password authentication failed/,
    );
    assert.ok(Date.now() - started < 3000);
  });

  test('a database that stops answering yields StorageUnavailableError within the timeouts, and service resumes by itself', async (t) => {
    const url = new URL(await testDatabase(t));
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
    t.after(() => proxy.close());
    const storage = await openPostgres({
      url: withPort(url.href, '127.0.0.1', proxy.port),
      poolSize: 4,
      timeouts: { connectMs: 500, statementMs: 500, queryMs: 700 },
    });
    t.after(() => storage.close());
    const pet = await createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status: 'available' }), { now: new Date() });

    proxy.freeze();
    for (const call of [() => storage.ping(), () => storage.pets.get(pet.id), () => placeOrder(storage, { petId: pet.id }, { now: new Date() })]) {
      const started = Date.now();
      await assert.rejects(call(), StorageUnavailableError);
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 1500, `failed after ${elapsed} ms`);
    }

    proxy.thaw();
    await storage.ping();
    assert.equal((await storage.pets.get(pet.id))!.status, 'available', 'the order cut off mid-way was not half-applied');
    assert.equal((await placeOrder(storage, { petId: pet.id }, { now: new Date() })).petId, pet.id);
  });

  test('an id beyond 2^53 is refused rather than returned rounded', async (t) => {
    const url = await testDatabase(t);
    const storage = await openPostgres({ url, poolSize: 2 });
    t.after(() => storage.close());
    const client = new pg.Client(url);
    await client.connect();
    await client.query('ALTER TABLE pets ALTER COLUMN id RESTART WITH 9007199254740993');
    await client.end();
    await assert.rejects(createPet(storage, petRecord({ name: 'Big', categoryId: 1, status: 'available' }), { now: new Date() }), RangeError);
  });

  test('creates batched in one statement: a value PostgreSQL cannot store fails only its own insert', async (t) => {
    const url = await testDatabase(t);
    const storage = await openPostgres({ url, poolSize: 2 });
    t.after(() => storage.close());
    // U+0000 is refused by validation before it reaches storage; here it stands for any data error
    // (SQLSTATE class 22) in one row of a batch.
    const names = ['Rex', 'nul \u0000 inside', 'Tom'];
    const results = await Promise.allSettled(
      names.map((name) => createPet(storage, petRecord({ name, categoryId: 1, status: 'available' }), { now: new Date() })),
    );
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value.name : (r.reason as { code?: string }).code)),
      ['Rex', '22021', 'Tom'],
    );
    assert.equal((await storage.pets.list({ limit: 10 }).then((page) => page.pets)).length, 2);
  });

  test('two transactions each creating a priced available pet do not wait for each other (stock value slots)', async (t) => {
    const url = await testDatabase(t);
    const storage = await openPostgres({ url, poolSize: 2 });
    t.after(() => storage.close());
    // Two connections whose slots differ (1 + pid % 128, migrations 8 and 9): the same slot is the
    // same row, and would rightly serialize them.
    // Ended by the test itself: the database is dropped in an after hook, which would wait for an
    // open transaction's locks.
    const clients: pg.Client[] = [];
    const connect = async () => {
      const c = new pg.Client(url);
      await c.connect();
      clients.push(c);
      const { rows } = await c.query<{ slot: number }>('SELECT 1 + pg_backend_pid() % 128 AS slot');
      return { c, slot: rows[0].slot };
    };
    const held = await connect();
    let other = await connect();
    while (other.slot === held.slot) other = await connect();
    const insert = (c: pg.Client, name: string, amount: number) =>
      c.query(`INSERT INTO pets (name, category_id, status, price_amount, price_currency) VALUES ($1, 1, 'available', $2, 'EUR')`, [name, amount]);

    try {
      await held.c.query('BEGIN');
      await insert(held.c, 'Held', 300);
      // A lock wait on a value row would hit this bound (and fail the test) instead of hanging.
      await other.c.query(`SET statement_timeout = '2s'`);
      await insert(other.c, 'Free', 200);
      assert.deepEqual((await storage.pets.inventory()).availableValue, { EUR: 200 });
      await held.c.query('COMMIT');
      assert.deepEqual((await storage.pets.inventory()).availableValue, { EUR: 500 });
      // Taken away through another slot than the one that added it: the sum stays exact.
      await other.c.query(`UPDATE pets SET status = 'sold' WHERE name = 'Held'`);
      await held.c.query(`DELETE FROM pets WHERE name = 'Free'`);
      assert.deepEqual((await storage.pets.inventory()).availableValue, {});
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
