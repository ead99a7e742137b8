// Issue 34 §2's last target: 8 clients uploading attacking photos as fast as they are answered
// leave a normal `GET /v1/pets?limit=20`'s p99 under 100 ms. The service runs as `npm start` runs
// it (SQLite, 1,000 pets, the default PHOTO_CONCURRENCY and PHOTO_BUDGET_MS_PER_MINUTE; the request
// limit at its maximum, so only the photo limits hold the attackers back), each
// attacker with a key of its own tree (the worst case: no shared budget), cycling through the
// attacks of issue 34 and the largest images each limit lets through. One reader asks for list20
// every 20 ms (50 a second, an open loop: a slow answer does not slow the asking) and records each
// latency. First a quiet run (the reader alone), then the attack, same length. A figure, not a test.
//
//   node bench/photo-attack.ts [--seconds 20] [--attackers 8]
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, npmStart, startServer } from './processes.ts';
import { readProcessCpu } from './proc.ts';
import { seed } from './seed.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '20' }, attackers: { type: 'string', default: '8' }, make: { type: 'string' } },
});

if (values.make !== undefined) {
  // A child makes the images (sharp's memory stays out of the measuring process).
  const { greyPng, rgba16Png, solid, webpBomb } = await import('../test/helpers/images.ts');
  const images: [string, () => Promise<Buffer> | Buffer][] = [
    ['png-39M-x-1', () => greyPng(39_000_000, 1)],
    ['png-1-x-39M', () => greyPng(1, 39_000_000)],
    ['webp-10x2000', () => webpBomb(10, 2000)],
    ['png16-6000', () => rgba16Png(6000, 6000)],
    ['png-6324-grey', () => greyPng(6324, 6324)],
    ['jpeg-6324', () => solid('jpeg', { width: 6324, height: 6324 })],
    ['webp-6324', () => solid('webp', { width: 6324, height: 6324 })],
    ['webp-2x2236', () => webpBomb(2, 2236)],
  ];
  for (const [name, make] of images) await writeFile(join(values.make, name), await make());
  process.exit(0);
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(values.seconds);
const attackers = Number(values.attackers);
const dir = await mkdtemp(join(tmpdir(), 'petstore-photo-attack-'));
const stops: (() => Promise<void>)[] = [];
try {
  execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--make', dir]);
  const images = await Promise.all((await readdir(dir)).map(async (name) => ({ name, bytes: await readFile(join(dir, name)) })));
  const path = join(dir, 'petstore.db');
  const seeded = await seed({ engine: 'sqlite', path }, 1000, attackers, dir);
  const port = await freePort();
  const start = npmStart(ROOT);
  const server = await startServer(
    'service',
    [process.execPath, ...start.flags, join(ROOT, 'src/main.ts')],
    {
      ...start.env,
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: `sqlite:${path}`,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
      // The request limit off the table (as bench/run.ts does): the reader asks 50 times a second, and the attackers are held by the photo limits alone.
      RATE_LIMIT_PER_MINUTE: '1000000',
    },
    port,
  );
  stops.push(() => server.stop());
  const base = `http://127.0.0.1:${port}/v1`;

  const reader = async (ms: number) => {
    const latencies: number[] = [];
    const pending: Promise<void>[] = [];
    const end = performance.now() + ms;
    for (let next = performance.now(); next < end; next += 20) {
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
      pending.push(
        (async () => {
          const t = performance.now();
          const res = await fetch(`${base}/pets?limit=20`, { headers: { authorization: `Bearer ${seeded.key}` } });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`list20 answered ${res.status}`);
          latencies.push(performance.now() - t);
        })(),
      );
    }
    await Promise.all(pending);
    return latencies.sort((a, b) => a - b);
  };
  const cpuUs = () => readProcessCpu(server.pid)?.statUs ?? Number.NaN;
  const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
  const summary = (sorted: number[]) =>
    `${sorted.length} requests, p50 ${pct(sorted, 50).toFixed(1)} ms, p99 ${pct(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`;

  const cpu0 = cpuUs();
  const quiet = await reader(seconds * 1000);
  const cpu1 = cpuUs();
  console.log(`quiet:  list20 ${summary(quiet)}; server CPU ${(((cpu1 - cpu0) / (seconds * 1e6)) * 100).toFixed(0)} % of a core`);

  let attacking = true;
  const outcomes = new Map<string, number>();
  const attacker = async (i: number) => {
    const pet = 1 + i;
    for (let n = i; attacking; n++) {
      const image = images[n % images.length];
      const res = await fetch(`${base}/pets/${pet}/photos`, {
        method: 'POST',
        headers: { authorization: `Bearer ${seeded.runKeys[i]}`, 'content-type': 'image/png' },
        body: image.bytes,
      });
      const body = (await res.json()) as { code?: string; id?: number };
      const outcome = `${res.status}${body.code ? ` ${body.code}` : ''}`;
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      // Stay under the 10-photo limit: remove what was added.
      if (res.status === 201 && body.id !== undefined)
        await fetch(`${base}/pets/${pet}/photos/${body.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${seeded.runKeys[i]}` } });
    }
  };
  const peakBefore = server.memory().hwm;
  const attacks = Array.from({ length: attackers }, (_, i) => attacker(i));
  const cpu2 = cpuUs();
  const attacked = await reader(seconds * 1000);
  const cpu3 = cpuUs();
  attacking = false;
  await Promise.all(attacks);
  console.log(`attack: list20 ${summary(attacked)}; server CPU ${(((cpu3 - cpu2) / (seconds * 1e6)) * 100).toFixed(0)} % of a core`);
  console.log(`${attackers} attackers' answers: ${[...outcomes].map(([k, v]) => `${k} × ${v}`).join(', ')}`);
  console.log(`server peak RSS ${(peakBefore / 2 ** 20).toFixed(0)} MiB before the attack, ${(server.memory().hwm / 2 ** 20).toFixed(0)} MiB after`);
} finally {
  for (const stop of stops) await stop();
  await rm(dir, { recursive: true, force: true });
}
