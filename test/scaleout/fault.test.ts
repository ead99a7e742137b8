// The database stops under light load and comes back: the service answers 503 service_unavailable
// (never 500, never a request hanging past the engine's bound) and recovers by itself.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { createApiKey } from '../../src/keys/key.service.ts';
import { SCOPES } from '../../src/keys/key.types.ts';
import { openPostgres } from '../../src/storage/postgres/postgres.storage.ts';
import { startPostgresServer } from '../helpers/postgres-server.ts';
import { startService } from '../helpers/process.ts';
import { createPet } from '../../src/pets/pet.service.ts';
import { petRecord } from '../helpers/pets.ts';

// The engine's worst case is a connect timeout plus a query timeout (3 s + 6 s); a stopped server
// refuses connections at once, so in practice answers come in milliseconds.
const BOUND_MS = 9_000;

interface Sample {
  readonly phase: string;
  readonly status: number;
  readonly code?: string;
  readonly ms: number;
}

test('stopping the database turns answers into 503s, restarting it brings 200s back without restarting the service', async (t) => {
  // Its own server, since this test stops it.
  const server = await startPostgresServer();
  t.after(() => server.destroy());
  const storage = await openPostgres({ url: server.url, poolSize: 2 });
  const { key } = await createApiKey(storage, 'fault', SCOPES);
  const pet = await createPet(storage, petRecord({ name: 'Rex', categoryId: 1, status: 'sold' }), { now: new Date() });
  await storage.close();
  const service = await startService({ DATABASE_URL: server.url, DATABASE_POOL_SIZE: '4', NODE_ENV: 'production' });
  t.after(async () => void (await service.stop()));

  let phase = 'up';
  const samples: Sample[] = [];
  const request = async (path: string, init: RequestInit = {}): Promise<void> => {
    const at = phase;
    const started = performance.now();
    const res = await fetch(`${service.base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      signal: AbortSignal.timeout(BOUND_MS + 5000),
    });
    const body = await res.json();
    // A request in flight while the phase changed (say, when the server went down) belongs to neither.
    samples.push({ phase: at === phase ? at : `${at}→${phase}`, status: res.status, code: body.code, ms: performance.now() - started });
  };
  // Light load: a read, a write and a readiness probe every 25 ms, until told to stop.
  let running = true;
  const load = (async () => {
    while (running) {
      await Promise.all([
        request(`/v1/pets/${pet.id}`),
        request('/v1/pets', { method: 'POST', body: JSON.stringify({ name: 'x', categoryId: 1 }) }),
        request('/readyz'),
      ]);
      await sleep(25);
    }
  })();

  // Each measured phase lasts its time and until it has its samples (a loaded machine answers
  // fewer requests in 500 ms), within a bound.
  const phaseOf = async (ms: number) => {
    const until = Date.now() + ms;
    const deadline = until + 10_000;
    while ((Date.now() < until || samples.filter((s) => s.phase === phase).length <= 5) && Date.now() < deadline) await sleep(25);
  };
  await phaseOf(500);
  phase = 'stopping';
  await server.stop();
  phase = 'down';
  await phaseOf(1500);
  phase = 'starting';
  await server.start();
  // The pool reconnects on demand: wait (bounded) until a request has succeeded again.
  const deadline = Date.now() + 10_000;
  while (!samples.some((s) => s.phase === 'starting' && s.status < 300) && Date.now() < deadline) await sleep(50);
  phase = 'back';
  await phaseOf(500);
  running = false;
  await load;

  const of = (p: string) => samples.filter((s) => s.phase === p);
  assert.ok(of('up').length > 5 && of('down').length > 5 && of('back').length > 5, `samples per phase: ${['up', 'down', 'back'].map((p) => of(p).length)}`);
  const outcomes = (p: string) => [...new Set(of(p).map((s) => `${s.status} ${s.code ?? ''}`.trim()))].sort();
  assert.deepEqual(outcomes('up'), ['200', '201']);
  assert.deepEqual(outcomes('down'), ['503 service_unavailable']);
  assert.deepEqual(outcomes('back'), ['200', '201']);
  assert.equal(samples.filter((s) => s.status === 500).length, 0, 'no 500 in any phase');
  const slowest = Math.max(...samples.map((s) => s.ms));
  assert.ok(slowest < BOUND_MS, `slowest answer took ${Math.round(slowest)} ms`);
  t.diagnostic(`${samples.length} requests; down-phase answers ${of('down').length}, slowest ${Math.round(slowest)} ms overall`);
});
