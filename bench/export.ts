// GET /v1/pets.csv over a store of 10,000 and of 1,000,000 animals: the export follows the
// listing's pages and reads the next only when the socket has taken the last, so the server's
// memory stays flat whatever its length, and while its reader pauses. A figure, not a test: it
// reports the rows, the bytes, the time and the server's resident memory.
//
//   node bench/export.ts [--sizes 10000,1000000] [--query sort=name]
//
// Per size: a fresh SQLite database seeded by bench/seed.ts, the service started as `npm start`
// starts it, one download read as it arrives with a 3 s pause after its first 20 MB (a slow
// reader: the server must wait, not buffer), the server's VmRSS sampled every 20 ms.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, npmStart, startServer } from './processes.ts';
import { seed } from './seed.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000,1000000' }, query: { type: 'string', default: '' } } });
const MB = 1024 * 1024;
const PAUSE_AFTER = 20 * MB;
const url = (port: number) => `http://127.0.0.1:${port}/v1/pets.csv${values.query === '' ? '' : `?${values.query}`}`;

console.log(`GET /v1/pets.csv${values.query === '' ? '' : `?${values.query}`}, sqlite, one download per size, paused 3 s after 20 MB`);
console.log('animals\trows\tMB\tseconds (pause included)\tRSS before MB\tRSS peak while paused MB\tRSS peak MB');
for (const size of values.sizes.split(',').map(Number)) {
  const dir = await mkdtemp(join(tmpdir(), `petstore-export-${size}-`));
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
      const res = await fetch(url(port), { headers: { authorization: `Bearer ${seeded.key}` } });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
      let bytes = 0;
      let lines = 0;
      let pausedPeak = Number.NaN;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const was = bytes;
        bytes += chunk.length;
        for (const b of chunk) if (b === 10) lines++;
        if (was < PAUSE_AFTER && bytes >= PAUSE_AFTER) {
          const atPause = peak;
          peak = server.memory().rss;
          await delay(3000);
          pausedPeak = Math.max(peak, server.memory().rss);
          peak = Math.max(atPause, pausedPeak);
        }
      }
      const seconds = (performance.now() - t0) / 1000;
      clearInterval(sampler);
      peak = Math.max(peak, server.memory().rss);
      const paused = Number.isNaN(pausedPeak) ? '-' : (pausedPeak / MB).toFixed(0);
      console.log(
        `${size}\t${lines - 1}\t${(bytes / MB).toFixed(1)}\t${seconds.toFixed(1)}\t${(before / MB).toFixed(0)}\t${paused}\t${(peak / MB).toFixed(0)}`,
      );
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
