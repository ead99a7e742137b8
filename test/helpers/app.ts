import type { TestContext } from 'node:test';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.ts';
import type { Clock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { Metrics } from '../../src/http/ops/metrics.ts';
import { createApiKey } from '../../src/keys/key.service.ts';
import { SCOPES, type Scope } from '../../src/keys/key.types.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { openEngine, type Engine } from './engines.ts';

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
  built = await buildApp({ config: loadConfig(options.env ?? {}), storage, clock: options.clock, logger: options.logger, metrics, webhooks: options.webhooks });
  const app = built;
  const { key } = await createApiKey(storage, 'test', SCOPES, { owner: true });
  return { app, storage, key, auth: { authorization: `Bearer ${key}` } };
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
