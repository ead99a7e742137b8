import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Clock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createApiKey } from '../../src/keys/key.service.ts';
import { SCOPES, type Scope } from '../../src/keys/key.types.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';

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
  /** Defaults to a fresh in-memory SQLite database, closed with the app. */
  readonly storage?: Storage;
}

/** Builds the real app for one test and closes it (and its storage) when the test ends. */
export async function buildTestApp(t: TestContext, options: TestAppOptions = {}): Promise<TestApp> {
  const storage = options.storage ?? openSqlite({ path: ':memory:' });
  const app = await buildApp({ config: loadConfig(options.env ?? {}), storage, clock: options.clock });
  const { key } = await createApiKey(storage.apiKeys, 'test', SCOPES);
  t.after(async () => {
    await app.close();
    if (!options.storage) await storage.close();
  });
  return { app, storage, key, auth: { authorization: `Bearer ${key}` } };
}

export async function keyWithScopes(storage: Storage, scopes: readonly Scope[]): Promise<{ authorization: string }> {
  const { key } = await createApiKey(storage.apiKeys, `scoped ${scopes.join(',')}`, scopes);
  return { authorization: `Bearer ${key}` };
}

/** A clock tests can move. */
export function fixedClock(at: Date): Clock & { set(d: Date): void } {
  let now = at;
  return { now: () => now, set: (d) => (now = d) };
}
