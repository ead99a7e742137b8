// The migration files (src/storage/migrations/NNNN-<slug>/{sqlite,postgres}.sql): both engines list
// the same versions, each file's header is read strictly, and a database migrated from any earlier
// version (versions 1…k by one release, the rest by the next) ends with the schema a fresh database
// gets. On every engine.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { parseMigration, readMigrations } from '../../src/storage/migration.ts';
import { PgDb } from '../../src/storage/postgres/postgres.db.ts';
import { migratePostgres } from '../../src/storage/postgres/postgres.storage.ts';
import { migrateSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import { createTestDatabase, ENGINES } from '../helpers/engines.ts';

// Released under a different name on each engine; databases already record these names, so they stay.
const NAMED_APART = new Set([8]);

describe('migration files', () => {
  test('both engines list the same versions 1…n, under the same names', () => {
    const sqlite = readMigrations('sqlite');
    const postgres = readMigrations('postgres');
    assert.ok(sqlite.length >= 12);
    assert.deepEqual(
      sqlite.map((m) => m.version),
      sqlite.map((_, i) => i + 1),
    );
    assert.deepEqual(
      postgres.map((m) => m.version),
      sqlite.map((m) => m.version),
    );
    for (const [i, m] of sqlite.entries()) {
      if (NAMED_APART.has(m.version)) assert.notEqual(postgres[i].name, m.name, `${m.version} is named alike now: drop it from NAMED_APART`);
      else assert.equal(postgres[i].name, m.name, `migration ${m.version}`);
    }
    assert.deepEqual(
      sqlite.filter((m) => m.rebuildsTables).map((m) => m.version),
      [5],
    );
  });

  test('a file is its header, a blank line, then the SQL', () => {
    assert.deepEqual(parseMigration(3, '-- name: idempotency keys\n\nCREATE TABLE t (a INTEGER);\n', 'sqlite', 'f'), {
      version: 3,
      name: 'idempotency keys',
      sql: 'CREATE TABLE t (a INTEGER);\n',
    });
    assert.deepEqual(parseMigration(5, '-- name: rebuild\n-- rebuilds-tables: yes\n\nSELECT 1;\n', 'sqlite', 'f'), {
      version: 5,
      name: 'rebuild',
      sql: 'SELECT 1;\n',
      rebuildsTables: true,
    });
  });

  for (const [text, engine, why] of [
    ['-- name: a\nSELECT 1;\n\nSELECT 2;\n', 'sqlite', /not a header line/],
    ['SELECT 1;\n', 'sqlite', /no blank line/],
    ['-- rebuilds-tables: yes\n\nSELECT 1;\n', 'sqlite', /no name/],
    ['-- name: a\n-- rebuilds-tables: yes\n\nSELECT 1;\n', 'postgres', /in sqlite\.sql only/],
    ['-- name: a\n-- rebuilds-tables: no\n\nSELECT 1;\n', 'sqlite', /in sqlite\.sql only/],
    ['-- name: a\n-- name: b\n\nSELECT 1;\n', 'sqlite', /each key once/],
    ['-- name: a\n-- engine: sqlite\n\nSELECT 1;\n', 'sqlite', /unknown header engine/],
  ] as const)
    test(`refuses ${JSON.stringify(text.split('\n\n')[0])} in ${engine}.sql`, () => {
      assert.throws(() => parseMigration(1, text, engine, `0001-a/${engine}.sql`), why);
    });
});

/** Everything the migrations define in a SQLite database, and the rows they write. */
function sqliteSchema(db: DatabaseSync): unknown {
  const all = (sql: string) => db.prepare(sql).all();
  return {
    objects: all('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name'),
    migrations: all('SELECT version, name FROM schema_migrations ORDER BY version'),
    categories: all('SELECT * FROM categories ORDER BY id'),
    inventory: all('SELECT * FROM pet_inventory'),
    sequences: all('SELECT * FROM sqlite_sequence ORDER BY name'),
  };
}

/** Everything the migrations define in a PostgreSQL schema (catalog reads, the schema's name left out), and the rows they write. */
async function postgresSchema(db: PgDb, schema: string): Promise<unknown> {
  const all = async (sql: string) => JSON.parse(JSON.stringify(await db.query(sql, sql.includes('$1') ? [schema] : [])).replaceAll(schema, 'S'));
  return {
    relations: await all('SELECT c.relname, c.relkind, c.reloptions, c.relpersistence FROM pg_class c WHERE c.relnamespace = $1::regnamespace ORDER BY 1'),
    columns: await all(`SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull, a.attstorage,
        a.attgenerated, pg_get_expr(d.adbin, d.adrelid) AS "default", co.collname
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum LEFT JOIN pg_collation co ON co.oid = a.attcollation
      WHERE c.relnamespace = $1::regnamespace AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, 2`),
    indexes: await all('SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY 1'),
    constraints: await all(
      'SELECT conrelid::regclass::text AS relation, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = $1::regnamespace ORDER BY 1, 2',
    ),
    triggers: await all(`SELECT t.tgname, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE c.relnamespace = $1::regnamespace AND NOT t.tgisinternal ORDER BY 1`),
    functions: await all('SELECT proname, pg_get_functiondef(oid) AS def FROM pg_proc WHERE pronamespace = $1::regnamespace ORDER BY 1'),
    migrations: await all('SELECT version, name FROM schema_migrations ORDER BY version'),
    categories: await all('SELECT * FROM categories ORDER BY id'),
    inventory: await all('SELECT * FROM pet_inventory ORDER BY id'),
    sequences: await all('SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = $1 ORDER BY 1'),
  };
}

for (const engine of ENGINES) {
  describe(`${engine}: upgrading from any earlier version`, () => {
    const migrations = readMigrations(engine);

    if (engine === 'sqlite')
      test('gives the schema and rows of a freshly migrated database', () => {
        const migrated = (first: number) => {
          const db = new DatabaseSync(':memory:', { enableForeignKeyConstraints: true });
          try {
            migrateSqlite(db, migrations.slice(0, first));
            migrateSqlite(db, migrations);
            return sqliteSchema(db);
          } finally {
            db.close();
          }
        };
        const fresh = migrated(0);
        assert.match(JSON.stringify(fresh), /pets_stock_value_update/, 'the fresh database has the last triggers');
        for (let k = 1; k < migrations.length; k++) assert.deepEqual(migrated(k), fresh, `from version ${k}`);
      });
    else
      test('gives the schema and rows of a freshly migrated database', async (t) => {
        // One connection (a pool of one) for every step, each step in a schema of its own: the
        // session's search_path is set to it, so the migrations create everything there.
        const target = await createTestDatabase();
        t.after(() => target.drop());
        const db = new PgDb({ url: target.url, poolSize: 1 });
        t.after(() => db.close());
        const migrated = async (first: number) => {
          const schema = `${target.schema}_from_${first}`;
          await db.query(`CREATE SCHEMA ${schema}`);
          try {
            await db.query(`SET search_path TO ${schema}`);
            await migratePostgres(db, migrations.slice(0, first));
            await migratePostgres(db, migrations);
            return await postgresSchema(db, schema);
          } finally {
            await db.query(`DROP SCHEMA ${schema} CASCADE`);
          }
        };
        const fresh = await migrated(0);
        assert.match(JSON.stringify(fresh), /pets_stock_value_update/, 'the fresh database has the last triggers');
        for (let k = 1; k < migrations.length; k++) assert.deepEqual(await migrated(k), fresh, `from version ${k}`);
      });
  });
}
