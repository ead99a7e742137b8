import { after, type TestContext } from 'node:test';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.ts';
import { systemClock, type Clock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { Metrics } from '../../src/http/ops/metrics.ts';
import { buildLimits } from '../../src/http/policies/rate-limit.ts';
import { createApiKey } from '../../src/keys/key.service.ts';
import { SCOPES, type Scope } from '../../src/keys/key.types.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { openEngine, openResettableEngine, type Engine } from './engines.ts';

export interface TestApp {
  readonly app: FastifyInstance;
  readonly storage: Storage;
  /** Headers carrying a freshly created key with every scope. */
  readonly auth: { authorization: string };
  readonly key: string;
}

export interface TestAppOptions {
  readonly env?: Record<string, string>;
  readonly clock?: Clock;
  /** A storage the test owns (and closes). Without it, a fresh database of `engine` is used. */
  readonly storage?: Storage;
  /** Engine of the fresh database, closed and deleted with the app (default 'sqlite'; see engines.ts). */
  readonly engine?: Engine;
  readonly logger?: FastifyServerOptions['logger'];
  readonly metrics?: Metrics;
  readonly webhooks?: AppOptions['webhooks'];
  readonly eventStreams?: AppOptions['eventStreams'];
  readonly exportPageSize?: AppOptions['exportPageSize'];
}

/** Builds the real app for one test and closes it (and its storage) when the test ends. */
export async function buildTestApp(t: TestContext, options: TestAppOptions = {}): Promise<TestApp> {
  const own = options.storage ? undefined : await openEngine(options.engine ?? 'sqlite');
  const storage = options.storage ?? own!.storage;
  // Process metrics (event-loop monitor, GC observer) are left out: tests build hundreds of apps.
  const metrics = options.metrics ?? new Metrics(storage, { processMetrics: false });
  let built: FastifyInstance | undefined;
  // Registered before building, so the database is released even if building fails.
  t.after(async () => {
    await built?.close();
    await own?.dispose();
  });
  built = await buildApp({
    config: loadConfig(options.env ?? {}),
    storage,
    clock: options.clock,
    logger: options.logger,
    metrics,
    webhooks: options.webhooks,
    eventStreams: options.eventStreams,
    exportPageSize: options.exportPageSize,
  });
  const app = built;
  return withOwnerKey(app, storage);
}

/** The test's handle on an app: a new owner key with every scope, and the headers that carry it. */
async function withOwnerKey(app: FastifyInstance, storage: Storage): Promise<TestApp> {
  const { key } = await createApiKey(storage, 'test', SCOPES, { owner: true });
  return { app, storage, key, auth: { authorization: `Bearer ${key}` } };
}

/**
 * One app for the tests of a suite that need the same one (the configuration `env` gives, the system
 * clock, a fresh database of `engine`, a new owner key): call it in the suite's body, and each test
 * calls what it returns in place of `buildTestApp(t, { engine, env, webhooks })`. The first test builds the app; it is
 * closed after the suite. Before every later test it is put back to what a new app holds: the
 * database's rows as they were just after building (openResettableEngine) and the rate limiters'
 * counts and blocks. Not put back, so tests that depend on them build their own app: the metrics
 * registry's counts, and work a test leaves running (unawaited requests, webhook deliveries). Tests
 * take it one at a time, as node:test runs a suite's tests.
 */
export function sharedTestApp(
  engine: Engine = 'sqlite',
  options: Pick<TestAppOptions, 'env' | 'webhooks' | 'exportPageSize'> = {},
): (t: TestContext) => Promise<TestApp> {
  let shared: Promise<{ app: FastifyInstance; storage: Storage; reset(): Promise<void>; dispose(): Promise<void> }> | undefined;
  let holder: string | undefined;
  after(async () => {
    const built = await shared?.catch(() => undefined);
    await built?.dispose();
  });
  return async (t) => {
    if (holder !== undefined) throw new Error(`the shared app is still in use by "${holder}"`);
    holder = t.name;
    t.after(() => {
      holder = undefined;
    });
    if (shared === undefined) shared = buildSharedApp(engine, options);
    else await (await shared).reset();
    const { app, storage } = await shared;
    return withOwnerKey(app, storage);
  };
}

async function buildSharedApp(engine: Engine, { env = {}, webhooks, exportPageSize }: Pick<TestAppOptions, 'env' | 'webhooks' | 'exportPageSize'>) {
  const db = await openResettableEngine(engine);
  try {
    const config = loadConfig(env);
    const limits = await buildLimits(config, systemClock, () => {});
    const metrics = new Metrics(db.storage, { processMetrics: false });
    const app = await buildApp({ config, storage: db.storage, metrics, limits, webhooks, exportPageSize });
    await app.ready();
    await db.mark();
    return {
      app,
      storage: db.storage,
      async reset() {
        limits.clear();
        await db.reset();
      },
      async dispose() {
        await app.close();
        await db.dispose();
      },
    };
  } catch (err) {
    await db.dispose();
    throw err;
  }
}

export async function keyWithScopes(storage: Storage, scopes: readonly Scope[]): Promise<{ authorization: string }> {
  const { key } = await createApiKey(storage, `scoped ${scopes.join(',')}`, scopes);
  return { authorization: `Bearer ${key}` };
}

/** A clock tests can move. */
export function fixedClock(at: Date): Clock & { set(d: Date): void } {
  let now = at;
  return { now: () => now, set: (d) => (now = d) };
}

/** Collects pino's JSON lines, for tests that read the logs. */
export function logCapture(): { stream: { write(line: string): void }; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  return {
    stream: { write: (line: string) => void chunks.push(line) },
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
