// A real service process for the client's tests, started as `npm start` starts it (test/helpers/process.ts),
// on a fresh database of the given engine, with a bootstrap API key (PETSTORE_API_KEYS: every scope).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type Engine } from '../../../../test/helpers/engines.ts';
import { startService, type Started } from '../../../../test/helpers/process.ts';

export const API_KEY = 'sdk-test-bootstrap-key-0001';

export interface Service {
  /** The API's base URL, `/v1` included: what the client takes. */
  readonly baseUrl: string;
  readonly process: Started;
  stop(): Promise<void>;
}

export async function startPetstore(options: { engine?: Engine; env?: Record<string, string> } = {}): Promise<Service> {
  let database: { url: string; drop(): Promise<void> };
  if (options.engine === 'postgres') database = await createTestDatabase();
  else {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-sdk-'));
    database = { url: `sqlite:${join(dir, 'petstore.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const started = await startService({ DATABASE_URL: database.url, PETSTORE_API_KEYS: API_KEY, ...options.env });
  return {
    baseUrl: `${started.base}/v1`,
    process: started,
    async stop() {
      await started.stop('SIGKILL');
      await database.drop();
    },
  };
}
