// Migration 7 on endpoints the previous release registered (space-separated `events`, NULL = every
// type): the API shows them as before, and the outbox delivers to them by the new relation — while
// the column the previous release reads stays current. On every engine.
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
import { updateWebhook } from '../../src/webhooks/webhook.service.ts';
import { createTestDatabase, ENGINES, type Engine } from '../helpers/engines.ts';
import { SCOPES } from '../../src/keys/key.types.ts';
import { petRecord } from '../helpers/pets.ts';

/** Endpoints made here belong to no key (as a bootstrap key's) and may subscribe to anything. */
const OWNER = { keyId: null, scopes: SCOPES };

const AT = '2026-01-01T00:00:00.000Z';
const endpoint = (url: string, events: string | null, enabled: boolean) => [url, events, enabled, AT] as const;
// What the previous release wrote: an endpoint for every type, one listing two types (not in
// alphabetical order), one listing one type, one disabled.
const ENDPOINTS = [
  endpoint('https://a.example.com/', null, true),
  endpoint('https://b.example.com/', 'pet.created order.placed', true),
  endpoint('https://c.example.com/', 'order.placed', true),
  endpoint('https://d.example.com/', 'pet.created', false),
];
const INSERT = (p: (n: number) => string) =>
  `INSERT INTO webhooks (url, events, description, enabled, secret, created_at, updated_at) VALUES (${p(1)}, ${p(2)}, NULL, ${p(3)}, 'sealed', ${p(4)}, ${p(4)})`;

/** A database at version 6 holding ENDPOINTS, then opened by the engine (which applies 7). */
async function upgraded(t: TestContext, engine: Engine): Promise<{ storage: Storage; legacyEvents: () => Promise<(string | null)[]> }> {
  const before = (m: { version: number }) => m.version <= 6;
  if (engine === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-m7-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'p.db');
    const db = new DatabaseSync(path, { enableForeignKeyConstraints: true });
    migrateSqlite(db, SQLITE_MIGRATIONS.filter(before));
    for (const [url, events, enabled, at] of ENDPOINTS) db.prepare(INSERT((n) => `?${n}`)).run(url, events, Number(enabled), at);
    db.close();
    const storage = openSqlite({ path });
    t.after(() => storage.close());
    const legacyEvents = async () => {
      const reader = new DatabaseSync(path, { readOnly: true });
      const rows = reader.prepare('SELECT events FROM webhooks ORDER BY id').all() as { events: string | null }[];
      reader.close();
      return rows.map((r) => r.events);
    };
    return { storage, legacyEvents };
  }
  const target = await createTestDatabase();
  t.after(() => target.drop());
  const db = new PgDb({ url: target.url, poolSize: 1 });
  t.after(() => db.close());
  await migratePostgres(db, POSTGRES_MIGRATIONS.filter(before));
  for (const row of ENDPOINTS)
    await db.query(
      INSERT((n) => `$${n}`),
      row,
    );
  const storage = await openPostgres({ url: target.url, poolSize: 2 });
  t.after(() => storage.close());
  const legacyEvents = async () => (await db.query<{ events: string | null }>('SELECT events FROM webhooks ORDER BY id')).map((r) => r.events);
  return { storage, legacyEvents };
}

for (const engine of ENGINES) {
  describe(`${engine}: migration 7 on existing endpoints`, () => {
    test('their events read as before, new events are delivered by the relation, and the old column stays current', async (t) => {
      const { storage, legacyEvents } = await upgraded(t, engine);
      const listed = await storage.webhooks.list({ limit: 10, afterId: 0 });
      assert.deepEqual(
        listed.map((w) => [w.url, w.events, w.enabled]),
        [
          ['https://a.example.com/', null, true],
          ['https://b.example.com/', ['pet.created', 'order.placed'], true],
          ['https://c.example.com/', ['order.placed'], true],
          ['https://d.example.com/', ['pet.created'], false],
        ],
      );
      await createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status: 'available' }), { now: new Date(AT) });
      const owed = async (id: number) => (await storage.webhooks.deliveries(id, { limit: 10, beforeId: Number.MAX_SAFE_INTEGER })).length;
      assert.deepEqual(await Promise.all(listed.map((w) => owed(w.id))), [1, 1, 0, 0], 'pet.created: to every type and to b only');
      const changed = await updateWebhook(storage, listed[2].id, { events: ['pet.deleted', 'order.placed'] }, OWNER, { now: new Date(AT) });
      assert.deepEqual(changed.events, ['pet.deleted', 'order.placed']);
      assert.deepEqual(await legacyEvents(), [null, 'pet.created order.placed', 'pet.deleted order.placed', 'pet.created']);
    });
  });
}
