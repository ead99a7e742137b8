// Process entry: configuration → storage → app → listen; graceful close on SIGTERM/SIGINT.
// The only module that reads process.env, listens or exits.
import { ConfigError, loadConfig, type Config } from './config.ts';
import type { Storage } from './storage/storage.ts';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`petstore: invalid configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  // The rest is imported once the configuration is known good: loading the app (Fastify, the
  // routes, their schemas) costs about a second of CPU, which a refused configuration need not pay.
  const [
    { buildApp, buildOpsApp, FRONT_DOOR_PATH },
    { Metrics },
    { loggerOptions },
    { createApiKey },
    { firstRunKeyFile, revealFirstRunKey },
    { SCOPES },
    { exposedDatabaseFiles, openStorage },
  ] = await Promise.all([
    import('./app.ts'),
    import('./http/ops/metrics.ts'),
    import('./logger.ts'),
    import('./keys/key.service.ts'),
    import('./first-run-key.ts'),
    import('./keys/key.types.ts'),
    import('./storage/open.ts'),
  ]);

  let storage: Storage;
  try {
    storage = await openStorage(config.database, { serve: true });
  } catch (err) {
    process.stderr.write(`petstore: cannot open the database (${config.database.engine}): ${(err as Error).message}\n`);
    process.exit(1);
  }

  const metrics = new Metrics(storage);
  const app = await buildApp({ config, storage, metrics, logger: loggerOptions(config) });
  for (const file of exposedDatabaseFiles(config.database))
    app.log.warn(
      { file },
      'other users of this machine can read or write this database file, and with it the key that seals webhook secrets: chmod 600 it (and its -wal and -shm files)',
    );
  const ops = config.metricsPort === undefined ? undefined : await buildOpsApp({ storage, metrics, logger: loggerOptions(config) });

  // First run: no key anywhere → in development mint one so a newcomer can call the API at once.
  if (config.bootstrapApiKeys.length === 0 && (await storage.apiKeys.count()) === 0) {
    if (config.production) {
      app.log.warn('no API key exists: create one with `npx petstore keys create --name <name>` (same DATABASE_URL)');
    } else {
      const mint = async () => (await createApiKey(storage, 'first-run', SCOPES, { owner: true })).key;
      const base = config.publicBaseUrl || `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}/v1`;
      let file: string | undefined;
      // Never on stdout: that is the JSON log stream (docs/operations.md, "The first-run key").
      try {
        file = await firstRunKeyFile(config.database, process.cwd());
        const shown = await revealFirstRunKey(mint, base, process.stderr, file);
        app.log.warn({ file: shown.file ?? null }, `no API key existed: the first-run key was ${shown.file ? 'written to a file' : 'printed on the terminal'}`);
      } catch (err) {
        app.log.error({ err, file }, 'no API key existed, and the first-run key file cannot be written: create a key with `npx petstore keys create --owner`');
      }
    }
  }

  // No one can sign in as a person yet: say how the owner's account is made (README, "Two commands").
  if ((await storage.staff.count()) === 0)
    app.log.warn(
      "no staff account exists: make the owner's with `npx petstore staff create --role owner --email <address> --name <name>` (same DATABASE_URL), which prints a one-time link",
    );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down: no new connections, finishing in-flight requests');
    // Past SHUTDOWN_TIMEOUT_MS the requests still running are cut off: exit 1 says so.
    const timer = setTimeout(() => {
      app.log.error('shutdown timed out; closing remaining connections');
      app.server.closeAllConnections();
      void storage.close().finally(() => process.exit(1));
    }, config.shutdownTimeoutMs);
    timer.unref();
    // close() stops accepting, closes idle keep-alive connections, and resolves once every
    // in-flight request has been answered; only then is the database closed under them.
    // A keep-alive connection whose request finishes after close() began is idle only from then
    // on; closing idle connections repeatedly lets close() resolve without waiting for clients.
    const reaper = setInterval(() => {
      app.server.closeIdleConnections();
      ops?.server.closeIdleConnections();
    }, 100);
    await Promise.all([app.close(), ops?.close()]);
    clearInterval(reaper);
    await storage.close();
    app.log.info('shut down cleanly');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  try {
    await app.listen({ port: config.port, host: config.host });
    if (ops) await ops.listen({ port: config.metricsPort, host: config.host });
    const { port } = app.server.address() as { port: number };
    const origin = config.publicBaseUrl
      ? new URL(config.publicBaseUrl).origin
      : `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    const banner = `Pet Store ready: open ${origin}${FRONT_DOOR_PATH} (the API is under ${origin}/v1)`;
    // A person starting it locally reads the terminal (stderr: stdout carries JSON log lines only,
    // for the collectors that read it); in production the banner is a log line like any other.
    if (config.production) app.log.info({ url: `${origin}${FRONT_DOOR_PATH}` }, banner);
    else process.stderr.write(`${banner}\n`);
  } catch (err) {
    process.stderr.write(`petstore: cannot listen on ${config.host}:${config.port}${ops ? ` or ${config.metricsPort}` : ''}: ${(err as Error).message}\n`);
    await storage.close();
    process.exit(1);
  }
}

await main();
