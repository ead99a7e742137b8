// GET /v1/records/dealer-book over a store of 10,000 and of 1,000,000 animals: the book is streamed
// a page of animals at a time, so the server's memory stays flat whatever its length. A figure,
// not a test: it reports the rows, the bytes, the time and the server's resident memory.
//
//   node bench/dealer-book.ts [--sizes 10000,1000000]
//
// Per size: a fresh SQLite database seeded by bench/seed.ts, the service started as `npm start`
// starts it, one download read as it arrives, the server's VmRSS sampled every 20 ms.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SEEDED_AT } from './fixture.ts';
import { freePort, npmStart, startServer } from './processes.ts';
import { seed } from './seed.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000,1000000' } } });
const MB = 1024 * 1024;
const day = new Date(SEEDED_AT).toISOString().slice(0, 10);

console.log(`GET /v1/records/dealer-book?from=${day}&to=${day}, sqlite, one download per size`);
console.log('animals\trows\tMB\tseconds\tRSS before MB\tRSS peak during MB');
for (const size of values.sizes.split(',').map(Number)) {
  const dir = await mkdtemp(join(tmpdir(), `petstore-dealer-book-${size}-`));
  try {
    const path = join(dir, 'petstore.db');
    const seeded = await seed({ engine: 'sqlite', path }, size);
    const port = await freePort();
    const start = npmStart(ROOT);
    const env = {
      PATH: process.env.PATH,
      ...start.env,
      DATABASE_URL: `sqlite:${path}`,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
    };
    const server = await startServer('service', [process.execPath, ...start.flags, 'src/main.ts'], env, port);
    try {
      const before = server.memory().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, server.memory().rss);
      }, 20);
      const t0 = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/v1/records/dealer-book?from=${day}&to=${day}`, { headers: { authorization: `Bearer ${seeded.key}` } });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
      let bytes = 0;
      let lines = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        for (const b of chunk) if (b === 10) lines++;
      }
      const seconds = (performance.now() - t0) / 1000;
      clearInterval(sampler);
      peak = Math.max(peak, server.memory().rss);
      console.log(`${size}\t${lines - 1}\t${(bytes / MB).toFixed(1)}\t${seconds.toFixed(1)}\t${(before / MB).toFixed(0)}\t${(peak / MB).toFixed(0)}`);
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
