// The health log's storage contract on every engine (HealthRepository, HealthTx, through the
// health workflows), its behaviour under concurrent writers, and the plans of its reads: the log
// and the due list are walked from their indexes, never sorted whole.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import type { NewHealthRecord } from '../../src/health/health.schemas.ts';
import { appendRecord, voidRecord } from '../../src/health/health.service.ts';
import { createPet, withdrawPet } from '../../src/pets/pet.service.ts';
import { PgDb } from '../../src/storage/postgres/postgres.db.ts';
import { migratePostgres } from '../../src/storage/postgres/postgres.storage.ts';
import { HEALTH_READS } from '../../src/storage/sql/sql.health.ts';
import { readMigrations } from '../../src/storage/migration.ts';
import { migrateSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { createTestDatabase, ENGINES, feedSettled, openTestStorage, type TestDatabase } from '../helpers/engines.ts';
import { rejectsWith } from '../helpers/errors.ts';
import { petRecord } from '../helpers/pets.ts';
import { warmUp } from '../helpers/storage.ts';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const EXAM: NewHealthRecord = { kind: 'exam', date: '2026-01-10', name: 'Check-up', givenBy: 'Dr. A. Jones' };

const newPet = async (storage: Storage, name = 'Rex') => (await createPet(storage, petRecord({ name, categoryId: 1 }), { now: NOW })).id;
const add = (storage: Storage, petId: number, input: Partial<NewHealthRecord> = {}, now = NOW) => appendRecord(storage, petId, { ...EXAM, ...input }, { now });

for (const engine of ENGINES) {
  describe(`${engine} storage: health log`, () => {
    test('a record round-trips every field; absent optional ones stay absent', async (t) => {
      const storage = await openTestStorage(t, engine);
      const petId = await newPet(storage);
      const full = await add(storage, petId, {
        kind: 'vaccination',
        date: '2026-02-28',
        name: 'Nobivac 😀 \ud800',
        batch: 'A1',
        notes: 'n',
        nextDue: '2027-02-28',
      });
      assert.deepEqual(full, {
        id: full.id,
        petId,
        kind: 'vaccination',
        date: '2026-02-28',
        name: 'Nobivac 😀 \ufffd',
        batch: 'A1',
        givenBy: 'Dr. A. Jones',
        notes: 'n',
        nextDue: '2027-02-28',
        recordedAt: NOW.toISOString(),
      });
      const bare = await add(storage, petId);
      assert.deepEqual(Object.keys(bare), ['id', 'petId', 'kind', 'date', 'name', 'givenBy', 'recordedAt']);
      assert.deepEqual(await storage.health.get(petId, full.id), full);
      assert.equal(await storage.health.get(petId + 1, full.id), undefined, 'a record is found under its own pet only');
      assert.deepEqual(await storage.health.list({ petId, limit: 10 }), [full, bare], 'latest date first');
    });

    test('the log pages by (date, id) descending, from a position', async (t) => {
      const storage = await openTestStorage(t, engine);
      const petId = await newPet(storage);
      const r = [];
      for (const date of ['2026-01-02', '2026-01-03', '2026-01-02', '2026-01-01']) r.push(await add(storage, petId, { date }));
      const ids = (rows: { id: number }[]) => rows.map((x) => x.id);
      assert.deepEqual(ids(await storage.health.list({ petId, limit: 10 })), [r[1].id, r[2].id, r[0].id, r[3].id]);
      assert.deepEqual(ids(await storage.health.list({ petId, limit: 2, after: { date: r[2].date, id: r[2].id } })), [r[0].id, r[3].id]);
      assert.deepEqual(ids(await storage.health.list({ petId, limit: 10, after: { date: '2026-01-01', id: r[3].id } })), []);
    });

    test('a void is written once, keeps the record, and moves the due entry to the latest live record of the kind', async (t) => {
      const storage = await openTestStorage(t, engine);
      const petId = await newPet(storage);
      const older = await add(storage, petId, { kind: 'deworming', date: '2026-01-01', nextDue: '2026-04-01' });
      const newer = await add(storage, petId, { kind: 'deworming', date: '2026-03-01', nextDue: '2026-06-01' });
      await add(storage, petId, { kind: 'exam', date: '2026-03-05' });
      const dueIds = async () => (await storage.health.due({ before: '2027-01-01', limit: 10 })).map((r) => r.id);
      assert.deepEqual(await dueIds(), [newer.id]);
      const later = new Date(NOW.getTime() + 60_000);
      const voided = await voidRecord(storage, petId, newer.id, 'wrong product', { now: later });
      assert.deepEqual(voided, { ...newer, voided: { at: later.toISOString(), reason: 'wrong product' } });
      assert.deepEqual(await storage.health.get(petId, newer.id), voided);
      assert.deepEqual(await dueIds(), [older.id]);
      await assert.rejects(voidRecord(storage, petId, newer.id, 'again', { now: NOW }), rejectsWith('already_voided'));
      assert.deepEqual(await storage.health.get(petId, newer.id), voided, 'the second void changed nothing');
      await voidRecord(storage, petId, older.id, 'also wrong', { now: later });
      assert.deepEqual(await dueIds(), []);
      await assert.rejects(voidRecord(storage, petId, 999_999, 'x', { now: NOW }), rejectsWith('not_found', /health record 999999 of pet/));
    });

    test("the due list: earliest nextDue first, ties by id, before is exclusive, withdrawn pets' entries left out, paged", async (t) => {
      const storage = await openTestStorage(t, engine);
      const [a, b, c] = [await newPet(storage, 'a'), await newPet(storage, 'b'), await newPet(storage, 'c')];
      const aV = await add(storage, a, { kind: 'vaccination', nextDue: '2026-05-01' });
      const bV = await add(storage, b, { kind: 'vaccination', nextDue: '2026-05-01' });
      const bW = await add(storage, b, { kind: 'deworming', nextDue: '2026-03-01' });
      await add(storage, c, { kind: 'vaccination', nextDue: '2026-02-01' });
      await withdrawPet(storage, c, { now: NOW });
      const ids = async (q: Parameters<Storage['health']['due']>[0]) => (await storage.health.due(q)).map((r) => r.id);
      assert.deepEqual(await ids({ before: '2026-12-31', limit: 10 }), [bW.id, aV.id, bV.id]);
      assert.deepEqual(await ids({ before: '2026-05-01', limit: 10 }), [bW.id]);
      assert.deepEqual(await ids({ before: '2026-12-31', limit: 1, after: { nextDue: '2026-05-01', id: aV.id } }), [bV.id]);
      assert.deepEqual(await ids({ before: '2026-12-31', limit: 10, after: { nextDue: '2026-03-01', id: bW.id } }), [aV.id, bV.id]);
    });

    test('appends and voids publish pet.health.recorded and pet.health.voided in their transaction', async (t) => {
      const storage = await openTestStorage(t, engine);
      const petId = await newPet(storage);
      const record = await add(storage, petId);
      const voided = await voidRecord(storage, petId, record.id, 'wrong', { now: NOW });
      await feedSettled(storage);
      const events = await storage.events.list({ limit: 10, afterId: 0 });
      assert.deepEqual(
        events.filter((e) => e.type.startsWith('pet.health.')).map((e) => [e.type, e.data]),
        [
          ['pet.health.recorded', record],
          ['pet.health.voided', voided],
        ],
      );
    });

    test('concurrent appends and voids of one animal (one loop turn) leave its due entry that of its latest live record', async (t) => {
      const storage = await openTestStorage(t, engine);
      await warmUp(storage);
      const petId = await newPet(storage);
      const days = Array.from({ length: 20 }, (_, i) => `2026-01-${String(i + 1).padStart(2, '0')}`);
      const records = await Promise.all(days.map((date) => add(storage, petId, { kind: 'vaccination', date, nextDue: date.replace('2026', '2027') })));
      const top = records.find((r) => r.date === '2026-01-20')!;
      assert.deepEqual(
        (await storage.health.due({ before: '2030-01-01', limit: 10 })).map((r) => r.id),
        [top.id],
      );
      const voids = records.filter((r) => r.date > '2026-01-10');
      const outcomes = await Promise.allSettled([...voids, top].map((r) => voidRecord(storage, petId, r.id, 'batch recalled', { now: NOW })));
      assert.equal(outcomes.filter((o) => o.status === 'rejected').length, 1, 'the record voided twice at once: one void, one already_voided');
      const due = await storage.health.due({ before: '2030-01-01', limit: 10 });
      assert.deepEqual(
        due.map((r) => r.date),
        ['2026-01-10'],
      );
    });
  });
}

// The plans: the log walks (pet_id, given_on, id) backwards; the due list walks (next_due,
// record_id) forwards; neither sorts what it reads.
if (ENGINES.includes('sqlite')) {
  describe('sqlite: health log plans', () => {
    const db = new DatabaseSync(':memory:');
    migrateSqlite(db, readMigrations('sqlite'));
    const params = {
      LOG_FIRST: [1, 21],
      LOG_AFTER: [1, 21, '2026-01-01', 5],
      DUE_FIRST: ['2026-12-01', 21],
      DUE_AFTER: ['2026-12-01', 21, '2026-01-01', 5],
      LATEST: [1, 'vaccination'],
    } as const;
    const index = {
      LOG_FIRST: 'health_records_log',
      LOG_AFTER: 'health_records_log',
      DUE_FIRST: 'health_due_next',
      DUE_AFTER: 'health_due_next',
      LATEST: 'health_records_live_kind',
    };
    for (const name of Object.keys(HEALTH_READS) as (keyof typeof HEALTH_READS)[]) {
      test(name, () => {
        const sql = HEALTH_READS[name].replaceAll(/\$(\d+)/g, '?$1');
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params[name]) as { detail: string }[]).map((r) => r.detail).join('\n');
        assert.doesNotMatch(plan, /USE TEMP B-TREE/, plan);
        assert.match(plan, new RegExp(`USING (COVERING )?INDEX ${index[name]}`), plan);
      });
    }
  });
}

if (ENGINES.includes('postgres')) {
  describe('postgres: health log plans (5,000 pets, 23,000 records, analyzed)', () => {
    let target: TestDatabase;
    let db: PgDb;
    before(async () => {
      target = await createTestDatabase();
      db = new PgDb({ url: target.url, poolSize: 1, timeouts: { statementMs: 120_000, queryMs: 130_000 } });
      await migratePostgres(db, readMigrations('postgres'));
      await db.query(`INSERT INTO pets (name, category_id, status, tags, created_at, updated_at, search_text, name_key)
        SELECT 'pet ' || i, 1, 'available', '[]', now(), now(), 'pet', 'pet ' || i FROM generate_series(1, 5000) AS i`);
      await db.query(`INSERT INTO health_records (pet_id, kind, given_on, name, given_by, next_due, recorded_at)
        SELECT 1 + i % 5000, (ARRAY['vaccination', 'deworming', 'exam', 'note'])[1 + (i / 5000)], DATE '2025-01-01' + i % 365, 'x', 'y',
               DATE '2026-01-01' + i % 365, now()
        FROM generate_series(0, 19999) AS i`);
      await db.query('INSERT INTO health_due (pet_id, kind, record_id, next_due) SELECT pet_id, kind, id, next_due FROM health_records');
      // One animal with a long log (3,000 vaccinations), whose pages must not sort it whole.
      await db.query(`INSERT INTO health_records (pet_id, kind, given_on, name, given_by, recorded_at)
        SELECT 42, 'vaccination', DATE '2020-01-01' + i, 'x', 'y', now() FROM generate_series(1, 3000) AS i`);
      await db.query('ANALYZE pets, health_records, health_due');
    });
    after(async () => {
      await db?.close();
      await target?.drop();
    });
    const explain = async (sql: string, params: unknown[]) =>
      (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).map((r) => r['QUERY PLAN']).join('\n');
    test('the due list walks health_due_next and sorts nothing', async () => {
      for (const [sql, params] of [
        [HEALTH_READS.DUE_FIRST, ['2026-12-01', 21]],
        [HEALTH_READS.DUE_AFTER, ['2026-12-01', 21, '2026-06-01', 100]],
      ] as const) {
        const plan = await explain(sql, [...params]);
        assert.match(plan, /Index Scan using health_due_next/, plan);
        assert.doesNotMatch(plan, /Sort/, plan);
      }
    });
    test("a long log's pages and its latest live record of a kind are walked from their indexes", async () => {
      for (const [sql, params, index] of [
        [HEALTH_READS.LOG_FIRST, [42, 21], 'health_records_log'],
        [HEALTH_READS.LOG_AFTER, [42, 21, '2025-06-01', 100], 'health_records_log'],
        [HEALTH_READS.LATEST, [42, 'vaccination'], 'health_records_live_kind'],
      ] as const) {
        const plan = await explain(sql, [...params]);
        assert.match(plan, new RegExp(`Index Scan Backward using ${index}`), plan);
        assert.doesNotMatch(plan, /Sort/, plan);
      }
    });
  });
}
