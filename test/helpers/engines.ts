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
// Every call gets a fresh, empty, migrated database, dropped when the test ends.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, type TestContext } from 'node:test';
import pg from 'pg';
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
  if (ownServer) await (await ownServer).destroy();
});

async function serverUrl(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  ownServer ??= import('./postgres-server.ts').then((m) => m.startPostgresServer());
  return (await ownServer).url;
}

// One small pool per test process for CREATE/DROP; allowExitOnIdle lets the process end with it open.
let adminPool: pg.Pool | undefined;
async function admin(sql: string): Promise<void> {
  if (!adminPool) {
    adminPool = new pg.Pool({ connectionString: await serverUrl(), max: 2, allowExitOnIdle: true });
    adminPool.on('error', () => {}); // a server stopped under us must not crash the test process
  }
  await adminPool.query(sql);
}

/**
 * A new, empty database for one test: its own schema on the shared server, addressed by a URL whose
 * search_path points at it, so the engine (and any service process given the URL) sees only it.
 * A schema rather than CREATE DATABASE because that copies template1 and takes ~0.4 s here, against
 * a few ms for a schema; the isolation the tests need is the same. `drop` deletes it and its rows.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const schema = `petstore_test_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(await serverUrl());
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.href, drop: () => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`) };
}

/** A fresh storage of `engine` and a function that closes it and deletes its data. */
export async function openEngine(engine: Engine): Promise<{ storage: Storage; dispose(): Promise<void> }> {
  if (engine === 'sqlite') {
    const storage = openSqlite({ path: ':memory:' });
    return { storage, dispose: () => storage.close() };
  }
  const db = await createTestDatabase();
  const storage = await openPostgres({ url: db.url, poolSize: 10 });
  return {
    storage,
    async dispose() {
      await storage.close();
      await db.drop();
    },
  };
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
  const target = engine === 'sqlite' ? await sqliteFile() : await createTestDatabase();
  const storages: Storage[] = [];
  t.after(async () => {
    for (const s of storages) await s.close();
    await target.drop();
  });
  for (let i = 0; i < count; i++) {
    storages.push(engine === 'sqlite' ? openSqlite({ path: target.url }) : await openPostgres({ url: target.url, poolSize: 10 }));
  }
  return storages;
}

async function sqliteFile(): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-sqlite-'));
  return { url: join(dir, 'petstore.db'), drop: () => rm(dir, { recursive: true, force: true }) };
}
