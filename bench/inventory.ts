// GET /v1/store/inventory on a store of 1,000 and of 1,000,000 pets: the maintained counts make
// its cost independent of the store's size (docs/performance.md, "Indexes and the inventory"). A figure, not a
// test: it reports latencies and says nothing passes or fails.
//
//   node bench/inventory.ts [--engine sqlite|postgres] [--requests 3000]
//
// Per size: a fresh database seeded by bench/seed.ts (the pets inserted by the database itself,
// the inventory triggers counting them), the service started as `npm start` starts it, then
// `--requests` sequential requests (fetch keeps the connection alive) after 300 to warm up.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { DatabaseConfig } from '../src/config.ts';
import { openBenchPostgres } from './postgres.ts';
import { freePort, npmStart, startServer } from './processes.ts';
import { seed } from './seed.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const { values } = parseArgs({ options: { engine: { type: 'string', default: 'sqlite' }, requests: { type: 'string', default: '3000' } } });
const engine = values.engine === 'postgres' ? 'postgres' : 'sqlite';
const requests = Number(values.requests);
const SIZES = [1_000, 1_000_000];

async function database(size: number): Promise<{ db: DatabaseConfig; close(): Promise<void> }> {
  if (engine === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), `petstore-inventory-${size}-`));
    return { db: { engine, path: join(dir, 'petstore.db') }, close: () => rm(dir, { recursive: true, force: true }) };
  }
  const pg = await openBenchPostgres(process.env);
  return { db: { engine, url: pg.url, poolSize: 10, statementTimeoutMs: 5000 }, close: () => pg.close() };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

console.log(`GET /v1/store/inventory, ${engine}, ${requests} sequential requests per size (after 300 to warm up)`);
console.log('pets\tmedian µs\tp99 µs\treq/s\tanswer');
for (const size of SIZES) {
  const { db, close } = await database(size);
  try {
    const seeded = await seed(db, size);
    const port = await freePort();
    const url = db.engine === 'sqlite' ? `sqlite:${db.path}` : db.url;
    const start = npmStart(ROOT);
    const env = {
      PATH: process.env.PATH,
      ...start.env,
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
    };
    const server = await startServer('service', [process.execPath, ...start.flags, 'src/main.ts'], env, port);
    const headers = { authorization: `Bearer ${seeded.key}` };
    const get = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/v1/store/inventory`, { headers });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
      return (await res.json()) as { available: number; pending: number; sold: number };
    };
    try {
      for (let i = 0; i < 300; i++) await get();
      const took: number[] = [];
      const started = performance.now();
      let answer = await get();
      for (let i = 0; i < requests; i++) {
        const t0 = performance.now();
        answer = await get();
        took.push((performance.now() - t0) * 1000);
      }
      const seconds = (performance.now() - started) / 1000;
      if (answer.available + answer.pending + answer.sold !== size) throw new Error(`the counts ${JSON.stringify(answer)} do not sum to ${size}`);
      took.sort((a, b) => a - b);
      console.log(
        `${size}\t${Math.round(quantile(took, 0.5))}\t${Math.round(quantile(took, 0.99))}\t${Math.round(requests / seconds)}\t${JSON.stringify(answer)}`,
      );
    } finally {
      await server.stop();
    }
  } finally {
    await close();
  }
}
