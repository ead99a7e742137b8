// An animal's history (GET /v1/events?petId=) is read through events_pet_xid_id (migration 16), in
// the feed's order: the plan of the statement the engines run walks that index and sorts nothing,
// among 20,000 events of 200 animals — never a scan of the feed.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { PgDb } from '../../src/storage/postgres/postgres.db.ts';
import { postgresDialect } from '../../src/storage/postgres/postgres.dialect.ts';
import { migratePostgres } from '../../src/storage/postgres/postgres.storage.ts';
import { readMigrations } from '../../src/storage/migration.ts';
import { AFTER } from '../../src/storage/sql/sql.events.ts';
import { sqliteDialect } from '../../src/storage/sqlite/sqlite.db.ts';
import { migrateSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import { createTestDatabase, ENGINES } from '../helpers/engines.ts';

/** The form with an animal and no list of types (sql.events.ts, FORMS). */
const BY_PET = 2;

describe('event feed plans: by animal', () => {
  if (ENGINES.includes('sqlite'))
    test('sqlite: walks events_pet_xid_id, no sort', () => {
      const db = new DatabaseSync(':memory:', { enableForeignKeyConstraints: false });
      migrateSqlite(db, readMigrations('sqlite'));
      db.exec(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20000)
        INSERT INTO events (type, data, created_at, pet_id) SELECT 'pet.updated', '{}', '2026-01-01T00:00:00.000Z', 1 + i % 200 FROM s;
        ANALYZE;`);
      const sql = AFTER[BY_PET](sqliteDialect).replaceAll(/\$(\d+)/g, '?$1');
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(0, null, 21, 0, 7) as { detail: string }[]).map((r) => r.detail).join('\n');
      assert.match(plan, /SEARCH events USING INDEX events_pet_xid_id \(pet_id=\? AND/, plan);
      assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
      db.close();
    });

  if (ENGINES.includes('postgres'))
    test('postgres: walks events_pet_xid_id, no sort', async (t) => {
      const target = await createTestDatabase();
      const db = new PgDb({ url: target.url, poolSize: 1, timeouts: { statementMs: 120_000, queryMs: 130_000 } });
      t.after(async () => {
        await db.close();
        await target.drop();
      });
      await migratePostgres(db, readMigrations('postgres'));
      await db.query(`INSERT INTO events (type, data, created_at, pet_id)
        SELECT 'pet.updated', '{}', now(), 1 + i % 200 FROM generate_series(1, 20000) AS i`);
      await db.query('ANALYZE events');
      const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${AFTER[BY_PET](postgresDialect)}`, [0, null, 21, '0', 7]);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      assert.match(plan, /Index Scan using events_pet_xid_id/, plan);
      assert.doesNotMatch(plan, /Sort/, plan);
    });
});
