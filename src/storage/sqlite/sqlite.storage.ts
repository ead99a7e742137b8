import { DatabaseSync } from 'node:sqlite';
import { StorageUnavailableError } from '../../errors.ts';
import type { Storage } from '../storage.ts';
import { type Migration, readMigrations } from '../migration.ts';
import { SqlCategories } from '../sql/sql.categories.ts';
import { SqlCustomers } from '../sql/sql.customers.ts';
import { SqlHolds } from '../sql/sql.holds.ts';
import { SqlImports } from '../sql/sql.imports.ts';
import { SqlDealerBook } from '../sql/sql.dealer-book.ts';
import { SqlOrders } from '../sql/sql.orders.ts';
import { SqlActivity } from '../sql/sql.activity.ts';
import { SqlEvents } from '../sql/sql.events.ts';
import { SqlHealth } from '../sql/sql.health.ts';
import { databaseSecret, databaseSetting, saveDatabaseSetting, SqlApiKeys, SqlIdempotency } from '../sql/sql.keys.ts';
import { SqlPhotos } from '../sql/sql.photos.ts';
import { SqlStaff } from '../sql/sql.staff.ts';
import { sqlTransaction } from '../sql/sql.transaction.ts';
import { SqlWebhooks } from '../sql/sql.webhooks.ts';
import { keysByHash, SqlitePets } from './sqlite.cached-reads.ts';
import { SqliteStatements, sqliteDb, sqliteDialect, transaction } from './sqlite.db.ts';
import { prepareDatabaseFiles } from './sqlite.files.ts';
import { GroupCommit } from './sqlite.group-commit.ts';
import { DatabaseChanges } from './sqlite.read-cache.ts';

export interface SqliteOptions {
  /** File path, or ':memory:'. */
  readonly path: string;
  /** Apply pending migrations while opening (start-up and `petstore migrate` do; default true). */
  readonly migrate?: boolean;
  /**
   * This process serves the database (main.ts): the claims still in flight in it are then those of a
   * process that died, released while opening (releaseAbandoned). A CLI command beside a running
   * service must not (default false).
   */
  readonly serve?: boolean;
}

// SQLite's one holder of claims and leases: the process serving the file.
const INSTANCE = 0;

export function openSqlite(options: SqliteOptions): Storage {
  if (options.path !== ':memory:') prepareDatabaseFiles(options.path);
  const db = new DatabaseSync(options.path, { enableForeignKeyConstraints: true, timeout: 5000 });
  // WAL lets readers run beside the writer; synchronous=FULL fsyncs the WAL at every commit, so
  // an acknowledged write survives power loss (docs/operations.md, "Durability").
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA busy_timeout = 5000');
  if (options.migrate !== false) {
    if (options.path === ':memory:') migrateMemory(db);
    else migrateSqlite(db, readMigrations('sqlite'));
  }
  if (options.serve === true) releaseAbandoned(db);

  const statements = new SqliteStatements(db);
  const ping = db.prepare('SELECT 1');
  let closed = false;

  // One connection: one write path (GroupCommit) whose batches every other use waits for; one set
  // of transaction repositories for every workflow; one change check for the read caches.
  const writes = new GroupCommit(db);
  const tx = sqlTransaction(sqliteDb(statements), sqliteDialect, INSTANCE);
  const outside = sqliteDb(statements, writes);
  const changes = new DatabaseChanges(db);
  return {
    engine: 'sqlite',
    pets: new SqlitePets(db, changes, writes),
    categories: new SqlCategories(outside),
    orders: new SqlOrders(outside),
    apiKeys: new SqlApiKeys(outside, keysByHash(db, changes, writes)),
    idempotency: new SqlIdempotency(outside, sqliteDialect, INSTANCE),
    events: new SqlEvents(outside, sqliteDialect),
    webhooks: new SqlWebhooks(outside, sqliteDialect),
    photos: new SqlPhotos(outside),
    health: new SqlHealth(outside),
    staff: new SqlStaff(outside),
    customers: new SqlCustomers(outside),
    holds: new SqlHolds(outside),
    dealerBook: new SqlDealerBook(outside),
    imports: new SqlImports(outside, sqliteDialect),
    activity: new SqlActivity(outside),
    transaction: (work) => writes.run(() => work(tx)),
    secret: (name) => databaseSecret(outside, name),
    setting: (name) => databaseSetting(outside, name),
    saveSetting: (name, value) => saveDatabaseSetting(outside, name, value),
    async ping() {
      if (closed) throw new StorageUnavailableError('the SQLite database is closed');
      try {
        ping.get();
      } catch (err) {
        throw new StorageUnavailableError('the SQLite database does not answer', { cause: err });
      }
    },
    stats() {
      return { connections: closed ? 0 : 1, idle: closed ? 0 : 1, waiting: 0 };
    },
    async close() {
      if (closed) return;
      closed = true;
      await writes.outside(() => {}); // a workflow half-way through its batch finishes first
      changes.close();
      db.close();
    },
  };
}

// A migrated, empty in-memory database as SQLite writes it out (sqlite3_serialize).
let migratedMemory: Uint8Array | undefined;

/**
 * Migrates a new in-memory database (tests open hundreds in one process, the CLI one): the first
 * is migrated, every later one starts as a copy of it just after migrating, which is the same
 * database for a small part of the cost. Only the rows' applied_at times are those of the first.
 */
export function migrateMemory(db: DatabaseSync): void {
  if (migratedMemory === undefined) {
    migrateSqlite(db, readMigrations('sqlite'));
    migratedMemory = db.serialize();
  } else {
    db.deserialize(migratedMemory);
  }
}

/**
 * One process serves the file (docs/deploy.md): when it starts, every Idempotency-Key claim still in
 * flight and every delivery lease belong to a process that died. Its keys can be used again at once
 * and its attempts are due again, instead of waiting out their age limit and lease.
 */
export function releaseAbandoned(db: DatabaseSync): { claims: number; leases: number } {
  return transaction(db, () => ({
    claims: Number(db.prepare('DELETE FROM idempotency_keys WHERE status IS NULL').run().changes),
    leases: Number(
      db
        .prepare(
          "UPDATE webhook_deliveries SET lease_until = NULL, lease_token = NULL, lease_instance = NULL WHERE status = 'pending' AND lease_token IS NOT NULL",
        )
        .run().changes,
    ),
  }));
}

export function migrateSqlite(db: DatabaseSync, migrations: readonly Migration[]): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT');
  const applied: number[] = [];
  for (const migration of migrations) {
    // PRAGMA foreign_keys is a no-op inside a transaction: switched off before it, back on after.
    if (migration.rebuildsTables) db.exec('PRAGMA foreign_keys = OFF');
    try {
      // One write transaction per migration; BEGIN IMMEDIATE serialises processes starting together.
      transaction(db, () => {
        const done = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version);
        if (done) return;
        db.exec(migration.sql);
        if (migration.rebuildsTables) {
          const broken = db.prepare('PRAGMA foreign_key_check').all();
          if (broken.length > 0) throw new Error(`migration ${migration.version} breaks foreign keys: ${JSON.stringify(broken.slice(0, 5))}`);
        }
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
          migration.version,
          migration.name,
          new Date().toISOString(),
        );
        applied.push(migration.version);
      });
    } finally {
      if (migration.rebuildsTables) db.exec('PRAGMA foreign_keys = ON');
    }
  }
  return applied;
}
