import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { StorageUnavailableError } from '../../errors.ts';
import type { Storage, Transaction } from '../storage.ts';
import type { Migration } from '../migration.ts';
import { SQLITE_MIGRATIONS } from './migrations.ts';
import { SqliteApiKeys, SqliteApiKeyTx } from './sqlite.api-keys.ts';
import { SqliteCategories, SqliteCategoryTx } from './sqlite.categories.ts';
import { SqliteEvents, SqliteEventTx } from './sqlite.events.ts';
import { GroupCommit } from './sqlite.group-commit.ts';
import { SqliteIdempotency, SqliteIdempotencyTx } from './sqlite.idempotency.ts';
import { SqliteOrders, SqliteOrderTx } from './sqlite.orders.ts';
import { SqlitePets, SqlitePetTx } from './sqlite.pets.ts';
import { DatabaseChanges } from './sqlite.read-cache.ts';
import { Sql, transaction } from './sqlite.tx.ts';
import { SqliteDeliveryTx, SqliteWebhooks, SqliteWebhookTx } from './sqlite.webhooks.ts';

export interface SqliteOptions {
  /** File path, or ':memory:'. */
  readonly path: string;
  /** Apply pending migrations while opening (start-up and `petstore migrate` do; default true). */
  readonly migrate?: boolean;
}

export function openSqlite(options: SqliteOptions): Storage {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const db = new DatabaseSync(options.path, { enableForeignKeyConstraints: true, timeout: 5000 });
  // WAL lets readers run beside the writer; synchronous=FULL fsyncs the WAL at every commit, so
  // an acknowledged write survives power loss (docs/operations.md, "Durability").
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA busy_timeout = 5000');
  if (options.migrate !== false) migrateSqlite(db, SQLITE_MIGRATIONS);

  const sql = new Sql(db);
  const ping = db.prepare('SELECT 1');
  let closed = false;

  // One change check shared by the read caches (see DatabaseChanges); one write path (GroupCommit)
  // that the reads wait for; one connection, so one set of transaction repositories for every workflow.
  const changes = new DatabaseChanges(db);
  const writes = new GroupCommit(db);
  const tx: Transaction = {
    pets: new SqlitePetTx(sql),
    categories: new SqliteCategoryTx(sql),
    orders: new SqliteOrderTx(sql),
    apiKeys: new SqliteApiKeyTx(sql),
    idempotency: new SqliteIdempotencyTx(sql),
    events: new SqliteEventTx(sql),
    webhooks: new SqliteWebhookTx(sql),
    deliveries: new SqliteDeliveryTx(sql),
  };
  return {
    engine: 'sqlite',
    pets: new SqlitePets(db, sql, changes, writes),
    categories: new SqliteCategories(sql, writes),
    orders: new SqliteOrders(sql, writes),
    apiKeys: new SqliteApiKeys(db, sql, changes, writes),
    idempotency: new SqliteIdempotency(db, sql, writes),
    events: new SqliteEvents(sql, writes),
    webhooks: new SqliteWebhooks(sql, writes),
    transaction: (work) => writes.run(() => work(tx)),
    secret(name) {
      return writes.outside(() => {
        sql.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', name, randomBytes(32).toString('base64url'));
        return sql.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', name)!.value;
      });
    },
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
