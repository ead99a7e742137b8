// node --test --test-global-setup: one PostgreSQL server for the whole run, shared by every test
// file through TEST_DATABASE_URL (child test processes inherit the variable). Each test then creates
// its own database on it (test/helpers/engines.ts). A TEST_DATABASE_URL set by the caller wins.
import { startPostgresServer, type PostgresServer } from './postgres-server.ts';

let server: PostgresServer | undefined;

export async function globalSetup(): Promise<void> {
  if (process.env.TEST_DATABASE_URL) return;
  server = await startPostgresServer();
  process.env.TEST_DATABASE_URL = server.url;
}

export async function globalTeardown(): Promise<void> {
  await server?.destroy();
}
