import type { DatabaseConfig } from '../config.ts';
import type { Storage } from './storage.ts';
import { exposedFiles } from './sqlite/sqlite.files.ts';
import { openSqlite } from './sqlite/sqlite.storage.ts';

/**
 * Opens the configured engine and applies pending migrations. The PostgreSQL engine (and the `pg`
 * driver, several MiB once loaded) is imported only when it is the one configured. `serve`: this
 * process serves the database (main.ts), not a CLI command beside it (SqliteOptions.serve).
 */
export async function openStorage(db: DatabaseConfig, options: { readonly serve?: boolean } = {}): Promise<Storage> {
  if (db.engine === 'sqlite') return openSqlite({ path: db.path, serve: options.serve });
  const { openPostgres } = await import('./postgres/postgres.storage.ts');
  const statementMs = db.statementTimeoutMs; // undefined: the engine's defaults (DEFAULT_TIMEOUTS)
  return openPostgres({ url: db.url, poolSize: db.poolSize, timeouts: statementMs === undefined ? undefined : { statementMs, queryMs: statementMs + 1000 } });
}

/** The database files other users of the machine may read or write (SQLite; none for PostgreSQL, whose files are its server's): a start-up warns about each. */
export function exposedDatabaseFiles(db: DatabaseConfig): string[] {
  return db.engine === 'sqlite' ? exposedFiles(db.path) : [];
}
