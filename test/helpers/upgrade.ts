// A store written by an earlier release, upgraded by this one: the migration tests' set-up.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { TestContext } from 'node:test';
import { PgDb } from '../../src/storage/postgres/postgres.db.ts';
import { migratePostgres, openPostgres } from '../../src/storage/postgres/postgres.storage.ts';
import type { SqlParam } from '../../src/storage/sql/sql.db.ts';
import { readMigrations } from '../../src/storage/migration.ts';
import { migrateSqlite, openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { createTestDatabase, feedOf, type Engine } from './engines.ts';

/** Runs one statement; parameters are written `$1`, `$2`… on both engines, booleans as booleans. */
export type Exec = (sql: string, params?: readonly SqlParam[]) => Promise<void>;

export interface Upgraded {
  /** The engine's storage, opened on the old database: it applied the migrations not yet there. */
  readonly storage: Storage;
  /** Reads the database beside the storage, as the earlier release would. */
  read<R>(sql: string): Promise<R[]>;
}

/**
 * A fresh database of `engine` with only the migrations `applied` accepts, holding what `write`
 * puts there through that schema, then opened by the engine as an upgrade would: the storage
 * applies the rest. Everything is closed and deleted when the test ends.
 */
export async function upgraded(t: TestContext, engine: Engine, applied: (version: number) => boolean, write: (exec: Exec) => Promise<void>): Promise<Upgraded> {
  if (engine === 'sqlite') {
    const { path, db } = await sqliteAt(t, applied);
    // SQLite numbers its parameters ?1, ?2… and stores booleans as 0 and 1.
    const sqliteParam = (p: SqlParam) => (typeof p === 'boolean' ? Number(p) : p) as string | number | null | Uint8Array;
    await write(async (sql, params = []) => void db.prepare(sql.replace(/\$(\d+)/g, '?$1')).run(...params.map(sqliteParam)));
    db.close();
    const storage = openSqlite({ path });
    t.after(() => storage.close());
    return {
      storage,
      async read<R>(sql: string) {
        const reader = new DatabaseSync(path, { readOnly: true });
        try {
          return reader.prepare(sql).all() as R[];
        } finally {
          reader.close();
        }
      },
    };
  }
  const target = await createTestDatabase();
  t.after(() => target.drop());
  const db = new PgDb({ url: target.url, poolSize: 1 });
  t.after(() => db.close());
  await migratePostgres(
    db,
    readMigrations('postgres').filter((m) => applied(m.version)),
  );
  await write(async (sql, params) => void (await db.query(sql, params)));
  const storage = await openPostgres({ url: target.url, poolSize: 2 });
  t.after(() => storage.close());
  feedOf(storage, target.schema);
  return { storage, read: <R>(sql: string) => db.query(sql) as Promise<R[]> };
}

/** A SQLite file with only the migrations `applied` accepts, open; deleted when the test ends. */
export async function sqliteAt(t: TestContext, applied: (version: number) => boolean): Promise<{ path: string; db: DatabaseSync }> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-upgrade-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'p.db');
  const db = new DatabaseSync(path, { enableForeignKeyConstraints: true });
  migrateSqlite(
    db,
    readMigrations('sqlite').filter((m) => applied(m.version)),
  );
  return { path, db };
}
