// Migration 12 on endpoints registered before it: they have no owner key (and keep working), and
// their destination host is filled in from their URL, so the per-host limit counts them. On every
// engine.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, test, type TestContext } from 'node:test';
import { createPet } from '../../src/pets/pet.service.ts';
import { POSTGRES_MIGRATIONS } from '../../src/storage/postgres/migrations.ts';
import { PgDb } from '../../src/storage/postgres/postgres.db.ts';
import { migratePostgres, openPostgres } from '../../src/storage/postgres/postgres.storage.ts';
import { SQLITE_MIGRATIONS } from '../../src/storage/sqlite/migrations.ts';
import { migrateSqlite, openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { claimAttempts } from '../../src/webhooks/webhook.deliveries.ts';
import { petRecord } from '../helpers/pets.ts';
import { createTestDatabase, ENGINES, type Engine } from '../helpers/engines.ts';

const AT = '2026-01-01T00:00:00.000Z';
// Every type, enabled: as the previous release wrote them. Three destinations.
const URLS = ['https://a.example.com/x', 'https://a.example.com/y?z=1', 'https://a.example.com:8443/', 'http://[2001:db8::1]:8080/p'];
const INSERT = (p: (n: number) => string) =>
  `INSERT INTO webhooks (url, events, all_events, description, enabled, secret, created_at, updated_at) VALUES (${p(1)}, NULL, ${p(2)}, NULL, ${p(2)}, 'sealed', ${p(3)}, ${p(3)})`;
const before = (m: { version: number }) => m.version < 12;

async function upgraded(t: TestContext, engine: Engine): Promise<Storage> {
  if (engine === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-m12-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'p.db');
    const db = new DatabaseSync(path, { enableForeignKeyConstraints: true });
    migrateSqlite(db, SQLITE_MIGRATIONS.filter(before));
    for (const url of URLS) db.prepare(INSERT((n) => `?${n}`)).run(url, 1, AT);
    db.close();
    const storage = openSqlite({ path });
    t.after(() => storage.close());
    return storage;
  }
  const target = await createTestDatabase();
  t.after(() => target.drop());
  const db = new PgDb({ url: target.url, poolSize: 1 });
  t.after(() => db.close());
  await migratePostgres(db, POSTGRES_MIGRATIONS.filter(before));
  for (const url of URLS)
    await db.query(
      INSERT((n) => `$${n}`),
      [url, true, AT],
    );
  const storage = await openPostgres({ url: target.url, poolSize: 2 });
  t.after(() => storage.close());
  return storage;
}

for (const engine of ENGINES) {
  describe(`${engine}: migration 12 on existing endpoints`, () => {
    test('they have no owner key, and their destinations are known to the per-host limit', async (t) => {
      const storage = await upgraded(t, engine);
      const listed = await storage.webhooks.list({ limit: 10, afterId: 0 });
      assert.deepEqual(
        listed.map((w) => [w.url, w.keyId]),
        URLS.map((url) => [url, null]),
      );
      const now = new Date(AT);
      await createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status: 'available' }), { now });
      const claimed = await claimAttempts(storage, { now, leaseUntil: new Date(now.getTime() + 10_000), token: 't', max: 10, perEndpoint: 10, perHost: 1 });
      assert.deepEqual(
        claimed.map((a) => a.url).sort(),
        ['http://[2001:db8::1]:8080/p', 'https://a.example.com/x', 'https://a.example.com:8443/'],
        'one attempt per destination: the two endpoints of a.example.com share one',
      );
    });
  });
}
