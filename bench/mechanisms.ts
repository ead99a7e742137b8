// What two of the request path's mechanisms cost against their plain alternatives, alone and on
// one thread (docs/performance.md, "What each speed-up buys"): the response serializer that
// remembers the JSON of frozen pets (src/http/policies/serialization.ts) against fast-json-stringify
// as Fastify compiles it, and the log writer (linesTo, src/logger.ts) against pino's own synchronous
// destination. CPU time of this thread (garbage collection on it included) per call,
// the two sides alternating in blocks, so a shared machine's drift falls on both. A figure, not a test.
//
//   node bench/mechanisms.ts [--rounds 9] [--calls 20000]
import { openSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { Metrics } from '../src/http/ops/metrics.ts';
import { cachedSerializerFactory } from '../src/http/policies/serialization.ts';
import { createApiKey } from '../src/keys/key.service.ts';
import { SCOPES } from '../src/keys/key.types.ts';
import { linesTo, loggerOptions } from '../src/logger.ts';
import { Pet, Pets } from '../src/pets/pet.schemas.ts';
import { openSqlite } from '../src/storage/sqlite/sqlite.storage.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '9' }, calls: { type: 'string', default: '20000' } } });
const rounds = Number(values.rounds);
const calls = Number(values.calls);

// The pets as the read cache hands them to every request: frozen, the same objects until a commit.
const storage = openSqlite({ path: ':memory:' });
const config = loadConfig({ RATE_LIMIT_PER_MINUTE: '0' });
const app = await buildApp({ config, storage, metrics: new Metrics(storage, { processMetrics: false }) });
await app.ready();
const { key } = await createApiKey(storage, 'bench', SCOPES, { owner: true });
for (let i = 0; i < 100; i++) {
  const payload = { name: `Pet ${i}`, categoryId: 1 + (i % 6), status: 'available', tags: ['friendly', `t${i % 7}`], description: 'A bench pet.' };
  const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: { authorization: `Bearer ${key}` }, payload });
  if (res.statusCode !== 201) throw new Error(`seeding: ${res.statusCode} ${res.body}`);
}
const list20 = (await storage.pets.list({ limit: 20 })).pets;
const list100 = (await storage.pets.list({ limit: 100, status: 'available' })).pets;
const one = await storage.pets.get(50);
if (!Object.isFrozen(list20[0]) || !Object.isFrozen(list100[0]) || !Object.isFrozen(one)) throw new Error('the read cache handed out pets that are not frozen');

// The response serializers of listPets and getPet, as Fastify asks its compiler for them.
type Route = Parameters<ReturnType<typeof cachedSerializerFactory>>[0];
const route = (schema: object) => ({ schema, method: 'GET', url: '/v1/pets', httpStatus: '200' }) as unknown as Route;
const shared = app.getSchemas();
const remembering = {
  list: cachedSerializerFactory(shared, undefined)(route({ ...Pets })),
  pet: cachedSerializerFactory(shared, undefined)(route({ ...Pet })),
};
const plain = { list: SerializerSelector()(shared, undefined)(route({ ...Pets })), pet: SerializerSelector()(shared, undefined)(route({ ...Pet })) };
if (remembering.list(list20) !== plain.list(list20) || remembering.pet(one) !== plain.pet(one)) throw new Error('the two serializers write different JSON');

// An access line, as telemetry writes one per request, to /dev/null through each writer.
const devNull = openSync('/dev/null', 'w');
const options = loggerOptions(config) as pino.LoggerOptions;
const writers = { linesTo: pino(options, linesTo(devNull)), 'pino.destination': pino(options, pino.destination({ dest: devNull, sync: true })) };
const accessLine = (log: pino.Logger, i: number) =>
  log.info({ reqId: `req-${i}`, req: { method: 'GET', url: '/v1/pets?limit=20' }, res: { statusCode: 200 }, responseTime: 1.234 }, 'request completed');

const cases: Record<string, Record<string, (i: number) => unknown>> = {
  'list20 JSON': { remembering: () => remembering.list(list20), plain: () => plain.list(list20) },
  'list100 JSON': { remembering: () => remembering.list(list100), plain: () => plain.list(list100) },
  'get JSON': { remembering: () => remembering.pet(one), plain: () => plain.pet(one) },
  'access line': { linesTo: (i) => accessLine(writers.linesTo, i), 'pino.destination': (i) => accessLine(writers['pino.destination'], i) },
};

// The scheduler's count of this thread's time on a CPU, in ns (as bench/proc.ts reads it for a
// process): getrusage's user and system times advance by whole clock ticks, too coarse for a block.
const cpuUs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1000;
const perCall: Record<string, Record<string, number[]>> = {};
for (let round = 0; round < rounds; round++) {
  for (const [name, sides] of Object.entries(cases)) {
    const order = round % 2 === 0 ? Object.keys(sides) : Object.keys(sides).reverse();
    for (const side of order) {
      const call = sides[side];
      for (let i = 0; i < 1000; i++) call(i);
      const start = cpuUs();
      for (let i = 0; i < calls; i++) call(i);
      const us = (cpuUs() - start) / calls;
      perCall[name] ??= {};
      perCall[name][side] = [...(perCall[name][side] ?? []), us];
    }
  }
}

const median = (a: readonly number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const spread = (a: readonly number[]) => `${median(a).toFixed(2)} (${Math.min(...a).toFixed(2)}–${Math.max(...a).toFixed(2)})`;
console.log(`CPU µs per call, median (min–max) of ${rounds} rounds of ${calls} calls; the difference is taken per round`);
for (const [name, sides] of Object.entries(perCall)) {
  const [kept, alternative] = Object.keys(sides);
  const saved = sides[alternative].map((us, i) => us - sides[kept][i]);
  console.log(`${name}: ${kept} ${spread(sides[kept])}, ${alternative} ${spread(sides[alternative])}; ${alternative} − ${kept} ${spread(saved)}`);
}
await app.close();
await storage.close();
