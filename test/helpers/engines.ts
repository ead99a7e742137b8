// The engine matrix: every storage contract and HTTP behaviour is proven on each engine.
//
//   for (const engine of ENGINES) {
//     describe(engine, () => {
//       test('…', async (t) => {
//         const { app, auth } = await buildTestApp(t, { engine });   // or: openTestStorage(t, engine)
//       });
//     });
//   }
//
// PostgreSQL runs on TEST_DATABASE_URL (set by test/helpers/global-setup.ts, or by the caller to use
// an existing server); without it, the first use starts one embedded server for this test process.
// Every call gets an empty, migrated database: a schema this test process migrated once and
// restores to its just-migrated rows after each test (see MigratedSchemas), not one migrated anew.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { postgresDialect } from '../../src/storage/postgres/postgres.dialect.ts';
import { openPostgres } from '../../src/storage/postgres/postgres.storage.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';

export type Engine = Storage['engine'];
const ALL: readonly Engine[] = ['sqlite', 'postgres'];

/** Every engine, or the comma-separated subset in TEST_ENGINES (a local shortcut, e.g. TEST_ENGINES=sqlite). */
export const ENGINES: readonly Engine[] = process.env.TEST_ENGINES ? ALL.filter((e) => process.env.TEST_ENGINES!.split(',').includes(e)) : ALL;

export interface TestDatabase {
  /** PostgreSQL connection URL (or, from sqliteFile, a file path). */
  readonly url: string;
  drop(): Promise<void>;
}

let ownServer: Promise<{ url: string; destroy(): Promise<void> }> | undefined;
// Registered at import (top level of the importing test file), so it runs once, after all its tests.
after(async () => {
  await migrated?.dropAll();
  await adminPool?.end();
  if (ownServer) await (await ownServer).destroy();
});

async function serverUrl(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  ownServer ??= import('./postgres-server.ts').then((m) => m.startPostgresServer());
  return (await ownServer).url;
}

// One small pool per test process for CREATE/DROP; allowExitOnIdle lets the process end with it open.
let adminPool: pg.Pool | undefined;
async function admin<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]> {
  if (!adminPool) {
    adminPool = new pg.Pool({ connectionString: await serverUrl(), max: 2, allowExitOnIdle: true });
    adminPool.on('error', () => {}); // a server stopped under us must not crash the test process
  }
  return (await adminPool.query<R>(sql, params)).rows;
}

/**
 * A new, empty database for one test: its own schema on the shared server, addressed by a URL whose
 * search_path points at it, so the engine (and any service process given the URL) sees only it.
 * A schema rather than CREATE DATABASE because that copies template1 and takes ~0.4 s here, against
 * a few ms for a schema; the isolation the tests need is the same. `drop` deletes it and its rows.
 */
export async function createTestDatabase(): Promise<TestDatabase & { schema: string }> {
  const schema = `petstore_test_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(await serverUrl());
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.href,
    schema,
    async drop() {
      await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

/** A migrated database of this test process: its URL, and what restores its just-migrated state. */
interface MigratedSchema {
  readonly db: TestDatabase & { schema: string };
  readonly reset: string;
}

/**
 * The migrated databases of one test process. Migrating costs ≈ 50 ms (and takes the migration
 * lock every instance shares); restoring the rows of a just-migrated database costs a few, so each
 * schema is migrated once and then reused: a test takes a clean one (or a new one, when every
 * one is taken, so concurrent tests never share), and gives it back restored. Restoring deletes
 * every row and puts back what the migrations wrote (schema_migrations, seeded categories, the
 * inventory row) and the identity sequences' positions, as read right after migrating: the next
 * test sees exactly what a freshly migrated database holds.
 */
class MigratedSchemas {
  readonly #free: MigratedSchema[] = [];
  readonly #all = new Set<TestDatabase>();

  async acquire(): Promise<MigratedSchema> {
    const clean = this.#free.pop();
    if (clean) return clean;
    const db = await createTestDatabase();
    this.#all.add(db);
    await (await openPostgres({ url: db.url, poolSize: 1 })).close();
    return { db, reset: await restoreSql(db.schema) };
  }

  /** Restores the schema for the next test; one that cannot be restored is dropped, and the test fails. */
  async release(schema: MigratedSchema): Promise<void> {
    try {
      await admin(schema.reset);
      this.#free.push(schema);
    } catch (err) {
      this.#all.delete(schema.db);
      await schema.db.drop();
      throw new Error(`restoring a test database failed (a test broke its schema?): ${(err as Error).message}`, { cause: err });
    }
  }

  async dropAll(): Promise<void> {
    this.#free.length = 0;
    for (const db of this.#all) await db.drop();
    this.#all.clear();
  }
}

let migrated: MigratedSchemas | undefined;

/** The statements that put a schema back as its migrations left it (read now, just after migrating). */
async function restoreSql(schema: string): Promise<string> {
  const q = (name: string) => `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`;
  // Every table after those its foreign keys reference: creation order, except where a later
  // migration gave an older table a reference to a newer one (orders.customer_id, migration 17).
  const created = await admin<{ name: string }>(
    "SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY c.oid",
    [schema],
  );
  const references = await admin<{ name: string; target: string }>(
    `SELECT c.relname AS name, t.relname AS target FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class t ON t.oid = k.confrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND k.contype = 'f' AND k.conrelid <> k.confrelid`,
    [schema],
  );
  const tables: { name: string }[] = [];
  const placed = new Set<string>();
  const place = (name: string) => {
    if (placed.has(name)) return;
    placed.add(name);
    for (const r of references) if (r.name === name) place(r.target);
    tables.push({ name });
  };
  for (const { name } of created) place(name);
  const refill: string[] = [];
  for (const { name } of tables) {
    // Ordered: a table's physical order moves with its updates, and contents() compares this text.
    const [{ rows }] = await admin<{ rows: string | null }>(`SELECT json_agg(t ORDER BY t::text)::text AS rows FROM ${q(name)} t`);
    if (rows) refill.push(`INSERT INTO ${q(name)} OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_recordset(NULL::${q(name)}, ${pg.escapeLiteral(rows)})`);
  }
  const sequences: string[] = [];
  for (const { name } of await admin<{ name: string }>('SELECT sequencename AS name FROM pg_sequences WHERE schemaname = $1', [schema])) {
    const [{ last, called }] = await admin<{ last: string; called: boolean }>(`SELECT last_value AS last, is_called AS called FROM ${q(name)}`);
    sequences.push(`SELECT setval(${pg.escapeLiteral(q(name))}, ${last}, ${called})`);
  }
  // The deletes, in the order foreign keys allow, run twice: the first fires the delete triggers
  // (pets keep inventory and stock value rows up to date), the second removes what they wrote.
  const emptied = tables.toReversed();
  // One simple query: PostgreSQL runs its statements as one transaction. The triggers fired by the
  // deletes name their functions without a schema, as the service's own connections do.
  return [
    `SET LOCAL search_path TO ${pg.escapeIdentifier(schema)}`,
    ...[...emptied, ...emptied].map(({ name }) => `DELETE FROM ${q(name)}`),
    ...refill,
    ...sequences,
  ].join(';\n');
}

// The schema of every PostgreSQL storage these helpers opened, for feedSettled.
const schemas = new WeakMap<Storage, string>();

/**
 * Resolves once every event committed so far is in the feed. PostgreSQL lists an event only when
 * every transaction older than its own has ended in the whole server (Dialect.settled: the snapshot's
 * xmin spans every database), and test files run in parallel on one server, so a feed read right
 * after a write can rarely miss it (docs/events.md). Call it between the writes and the feed read:
 * it polls until no event of this storage's schema is held back, for at most `timeoutMs`, then
 * fails. SQLite lists an event once it commits: nothing to wait for.
 */
export async function feedSettled(storage: Storage, timeoutMs = 5000): Promise<void> {
  if (storage.engine === 'sqlite') return;
  const schema = schemas.get(storage);
  if (schema === undefined) throw new Error('feedSettled: a storage not opened by test/helpers/engines.ts');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ held }] = await admin<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${pg.escapeIdentifier(schema)}.events WHERE NOT (${postgresDialect.settled('xid')})) AS held`,
    );
    if (!held) return;
    if (Date.now() >= deadline) throw new Error(`the event feed did not settle within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/** Lets feedSettled wait on a storage opened on a test database by other means (test/helpers/upgrade.ts). */
export function feedOf(storage: Storage, schema: string): void {
  schemas.set(storage, schema);
}

/** A fresh storage of `engine` and a function that closes it and deletes its data. */
export async function openEngine(engine: Engine): Promise<{ storage: Storage; dispose(): Promise<void> }> {
  if (engine === 'sqlite') {
    const storage = openSqlite({ path: ':memory:' });
    return { storage, dispose: () => storage.close() };
  }
  migrated ??= new MigratedSchemas();
  const schema = await migrated.acquire();
  const storage = await openPostgres({ url: schema.db.url, poolSize: 10, migrate: false });
  schemas.set(storage, schema.db.schema);
  return {
    storage,
    async dispose() {
      await storage.close();
      await migrated!.release(schema);
    },
  };
}

/**
 * A fresh storage of `engine` whose rows can be put back, while it stays open, to what they were at
 * `mark()`: for tests that share one app (sharedTestApp, test/helpers/app.ts), which marks it just after
 * building. Every table (SQLite's full-text index and sqlite_sequence included, PostgreSQL's
 * sequences) returns to its marked rows, written through a connection of its own, so the storage's
 * read caches see a change as they see another process's commit.
 */
export async function openResettableEngine(engine: Engine): Promise<{
  storage: Storage;
  mark(): Promise<void>;
  reset(): Promise<void>;
  /** Every row of every table (and PostgreSQL's sequence positions), as one comparable string. */
  contents(): Promise<string>;
  dispose(): Promise<void>;
}> {
  if (engine === 'sqlite') {
    // A file (on a RAM disk where there is one): a second connection must reach the database.
    const dir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'petstore-sqlite-'));
    const path = join(dir, 'petstore.db');
    const storage = openSqlite({ path });
    const db = new DatabaseSync(path, { enableForeignKeyConstraints: false, timeout: 5000, defensive: false });
    let restore: string | undefined;
    return {
      storage,
      async mark() {
        restore = sqliteRestoreSql(db);
      },
      async reset() {
        if (restore === undefined) throw new Error('reset before mark');
        try {
          db.exec(restore);
        } catch (err) {
          if (db.isTransaction) db.exec('ROLLBACK');
          throw err;
        }
      },
      async contents() {
        const tables = db.prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow') ORDER BY name").all() as {
          name: string;
        }[];
        const rows = (name: string) => db.prepare(`SELECT * FROM main."${name.replaceAll('"', '""')}"`).all();
        return JSON.stringify(
          tables.filter(({ name }) => name !== 'sqlite_schema').map(({ name }) => [name, rows(name)]),
          (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value),
        );
      },
      async dispose() {
        await storage.close();
        db.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const { storage, dispose } = await openEngine('postgres');
  const schema = schemas.get(storage)!;
  let restore: string | undefined;
  return {
    storage,
    async mark() {
      restore = await restoreSql(schema);
    },
    async reset() {
      if (restore === undefined) throw new Error('reset before mark');
      await admin(restore);
    },
    contents: () => restoreSql(schema),
    dispose,
  };
}

/**
 * Copies every table's rows into temporary tables of `db`'s connection, and returns the statements
 * that put them back in one transaction. Foreign keys are not checked on this connection. Tables with
 * triggers (pets: inventory, stock value, full-text index) are restored first, every other table
 * after them, sqlite_sequence last, so what those triggers write is overwritten by its marked rows.
 */
function sqliteRestoreSql(db: DatabaseSync): string {
  const id = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const tables = (db.prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow')").all() as { name: string }[])
    .map((r) => r.name)
    .filter((name) => name === 'sqlite_sequence' || !name.startsWith('sqlite_'));
  const triggered = new Set(
    (db.prepare("SELECT DISTINCT tbl_name AS name FROM sqlite_schema WHERE type = 'trigger'").all() as { name: string }[]).map((r) => r.name),
  );
  const order = [...tables.filter((t) => triggered.has(t)), ...tables.filter((t) => !triggered.has(t) && t !== 'sqlite_sequence'), 'sqlite_sequence'];
  const copy = (t: string) => `temp.${id(`marked_${t}`)}`;
  for (const t of order) db.exec(`DROP TABLE IF EXISTS ${copy(t)}; CREATE TABLE ${copy(t)} AS SELECT * FROM main.${id(t)}`);
  return [
    'BEGIN IMMEDIATE',
    ...[...triggered].map((t) => `DELETE FROM main.${id(t)}`),
    ...order.flatMap((t) => [`DELETE FROM main.${id(t)}`, `INSERT INTO main.${id(t)} SELECT * FROM ${copy(t)}`]),
    'COMMIT',
  ].join(';\n');
}

/** A fresh storage of `engine` for one test, closed and deleted when the test ends. */
export async function openTestStorage(t: TestContext, engine: Engine): Promise<Storage> {
  const { storage, dispose } = await openEngine(engine);
  t.after(dispose);
  return storage;
}

/**
 * `count` storages of `engine` opened on one and the same fresh database, as separate instances
 * (processes, in production) would: a temporary SQLite file, or one PostgreSQL database.
 */
export async function openSharedStorages(t: TestContext, engine: Engine, count: number): Promise<Storage[]> {
  const target: TestDatabase & { schema?: string } = engine === 'sqlite' ? await sqliteFile() : await createTestDatabase();
  const storages: Storage[] = [];
  t.after(async () => {
    for (const s of storages) await s.close();
    await target.drop();
  });
  for (let i = 0; i < count; i++) {
    const storage = engine === 'sqlite' ? openSqlite({ path: target.url }) : await openPostgres({ url: target.url, poolSize: 10 });
    if (target.schema !== undefined) schemas.set(storage, target.schema);
    storages.push(storage);
  }
  return storages;
}

async function sqliteFile(): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-sqlite-'));
  return { url: join(dir, 'petstore.db'), drop: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A fresh, empty database of `engine` for service processes (test/helpers/process.ts): its
 * DATABASE_URL. The processes migrate it; it is deleted when the test ends.
 */
export async function serviceDatabaseUrl(t: TestContext, engine: Engine): Promise<string> {
  const target = engine === 'sqlite' ? await sqliteFile() : await createTestDatabase();
  t.after(() => target.drop());
  return engine === 'sqlite' ? `sqlite:${target.url}` : target.url;
}
