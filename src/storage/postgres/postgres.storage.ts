import { setTimeout as sleep } from 'node:timers/promises';
import { type Migration, readMigrations } from '../migration.ts';
import type { Storage } from '../storage.ts';
import { isUnavailable, PgDb, type PgTimeouts } from './postgres.db.ts';
import { SqlCategories } from '../sql/sql.categories.ts';
import { SqlOrders } from '../sql/sql.orders.ts';
import { SqlActivity } from '../sql/sql.activity.ts';
import { SqlEvents } from '../sql/sql.events.ts';
import { SqlCustomers } from '../sql/sql.customers.ts';
import { SqlHolds } from '../sql/sql.holds.ts';
import { SqlImports } from '../sql/sql.imports.ts';
import { SqlDealerBook } from '../sql/sql.dealer-book.ts';
import { SqlHealth } from '../sql/sql.health.ts';
import { databaseSecret, databaseSetting, saveDatabaseSetting, SqlApiKeys, SqlIdempotency } from '../sql/sql.keys.ts';
import { SqlPhotos } from '../sql/sql.photos.ts';
import { SqlStaff } from '../sql/sql.staff.ts';
import { sqlTransaction } from '../sql/sql.transaction.ts';
import { SqlWebhooks } from '../sql/sql.webhooks.ts';
import { keysByHash, PostgresPets } from './postgres.batched-reads.ts';
import { postgresDialect } from './postgres.dialect.ts';
import { PgInstance } from './postgres.instance.ts';

export interface PostgresOptions {
  /** postgres:// or postgresql:// connection URL. */
  readonly url: string;
  readonly poolSize: number;
  /** Apply pending migrations while opening (start-up and `petstore migrate` do; default true). */
  readonly migrate?: boolean;
  /** How long opening keeps retrying an unreachable database before giving up (default 20 s). */
  readonly startupRetryMs?: number;
  readonly timeouts?: Partial<PgTimeouts>;
}

// Any fixed 64-bit number works; every instance and the CLI must use the same one.
const MIGRATION_LOCK = 7_290_514_001;

/**
 * Opens a pool on the database and applies pending migrations. An unreachable database is retried
 * with backoff for `startupRetryMs` (it may be starting next to us); a failure that retrying cannot
 * fix (bad password, missing database, a failing migration) fails at once. The error names host, port and database,
 * never the credentials.
 */
export async function openPostgres(options: PostgresOptions): Promise<Storage> {
  const db = new PgDb(options);
  const deadline = Date.now() + (options.startupRetryMs ?? 20_000);
  for (let attempt = 1, delay = 250; ; attempt++, delay = Math.min(delay * 2, 2000)) {
    try {
      if (options.migrate === false) await db.query('SELECT 1');
      else await migratePostgres(db, readMigrations('postgres'));
      break;
    } catch (err) {
      // Retried until the window ends, the last wait cut short by it, however slow each attempt was.
      const left = deadline - Date.now();
      if (isUnavailable(err) && left > 0) {
        await sleep(Math.min(delay, left));
        continue;
      }
      await db.close();
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
      const why = isUnavailable(err) ? `unreachable after ${attempt} attempt${attempt > 1 ? 's' : ''}` : 'could not be opened';
      throw new Error(`PostgreSQL at ${describe(options.url)} ${why}: ${(cause as Error).message}`, { cause: err });
    }
  }
  const instance = new PgInstance(options.url);
  try {
    await instance.hold();
  } catch (err) {
    await db.close();
    throw new Error(`PostgreSQL at ${describe(options.url)} could not be opened: ${(err as Error).message}`, { cause: err });
  }
  return postgresStorage(db, instance);
}

function postgresStorage(db: PgDb, instance: PgInstance): Storage {
  let closed = false;
  return {
    engine: 'postgres',
    pets: new PostgresPets(db),
    categories: new SqlCategories(db.statements),
    orders: new SqlOrders(db.statements),
    apiKeys: new SqlApiKeys(db.statements, keysByHash(db)),
    idempotency: new SqlIdempotency(db.statements, postgresDialect, instance.id),
    events: new SqlEvents(db.statements, postgresDialect),
    webhooks: new SqlWebhooks(db.statements, postgresDialect),
    photos: new SqlPhotos(db.statements),
    health: new SqlHealth(db.statements),
    staff: new SqlStaff(db.statements),
    customers: new SqlCustomers(db.statements),
    holds: new SqlHolds(db.statements),
    dealerBook: new SqlDealerBook(db.statements),
    imports: new SqlImports(db.statements, postgresDialect),
    activity: new SqlActivity(db.statements),
    // One READ COMMITTED transaction per workflow, its repositories bound to the transaction's connection.
    transaction: (work) => db.transaction((statements) => work(sqlTransaction(statements, postgresDialect, instance.id))),
    secret: (name) => databaseSecret(db.statements, name),
    setting: (name) => databaseSetting(db.statements, name),
    saveSetting: (name, value) => saveDatabaseSetting(db.statements, name, value),
    async ping() {
      await db.query('SELECT 1');
    },
    stats() {
      const { totalCount, idleCount, waitingCount } = db.pool;
      return { connections: totalCount, idle: idleCount, waiting: waitingCount };
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.close();
      await instance.close();
    },
  };
}

/**
 * Applies pending migrations, each in its own transaction (PostgreSQL DDL is transactional), while
 * holding a session-level advisory lock: instances starting together wait for the first one and
 * then find nothing left to do. The lock dies with the connection if this process does.
 */
export async function migratePostgres(db: PgDb, migrations: readonly Migration[]): Promise<number[]> {
  const applied: number[] = [];
  await db.session(async (query) => {
    await query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)');
      const done = new Set((await query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        await query('BEGIN');
        try {
          await query(migration.sql);
          await query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())', [migration.version, migration.name]);
          await query('COMMIT');
        } catch (err) {
          await query('ROLLBACK').catch(() => {});
          throw err;
        }
        applied.push(migration.version);
      }
    } finally {
      await query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    }
  });
  return applied;
}

/** host:port/database of a connection URL, without user or password (safe to print). */
function describe(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}
