import type { DatabaseConfig } from '../config.ts';
import type { Storage } from './storage.ts';
import { openSqlite } from './sqlite/sqlite.storage.ts';

/**
 * Opens the configured engine and applies pending migrations. The PostgreSQL engine (and the `pg`
 * driver, several MiB once loaded) is imported only when it is the one configured.
 */
export async function openStorage(db: DatabaseConfig): Promise<Storage> {
  if (db.engine === 'sqlite') return openSqlite({ path: db.path });
  const { openPostgres } = await import('./postgres/postgres.storage.ts');
  return openPostgres({ url: db.url, poolSize: db.poolSize });
}
