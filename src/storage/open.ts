import type { DatabaseConfig } from '../config.ts';
import type { Storage } from './storage.ts';
import { openPostgres } from './postgres/postgres.storage.ts';
import { openSqlite } from './sqlite/sqlite.storage.ts';

/** Opens the configured engine and applies pending migrations. */
export async function openStorage(db: DatabaseConfig): Promise<Storage> {
  if (db.engine === 'sqlite') return openSqlite({ path: db.path });
  return openPostgres({ url: db.url, poolSize: db.poolSize });
}
