// The store console's weight and speed (docs/performance.md, "The console"): the compressed bytes of
// its first load, and in headless Chromium how long a first visit takes to offer the sign-in form and
// how long each page takes to show its data, on a store of `--pets` animals. A figure, not a test.
//
//   node bench/console.ts [--pets 1000000] [--rounds 5]
//
// A fresh SQLite database seeded by bench/seed.ts, the service started as `npm start` starts it,
// Debian's chromium driven by playwright-core; each round a new browser context (an empty cache).
import { readdir, readFile, stat } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { freePort, npmStart, startServer } from './processes.ts';
import { fixturePet } from './fixture.ts';
import { seed } from './seed.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { pets: { type: 'string', default: '1000000' }, rounds: { type: 'string', default: '5' } } });
const pets = Number(values.pets);
const rounds = Number(values.rounds);

// The bytes a first visit downloads: the page, the script and the stylesheet the page names, the icon.
const dist = join(ROOT, 'console/dist');
const files = (await readdir(dist)).filter((f) => /\.(html|js|css|svg)$/.test(f));
const sizes = { raw: 0, gzip: 0, br: 0 };
const scriptsAndStyles = { raw: 0, gzip: 0, br: 0 };
for (const f of files) {
  const one = { raw: (await stat(join(dist, f))).size, gzip: (await stat(join(dist, `${f}.gz`))).size, br: (await stat(join(dist, `${f}.br`))).size };
  for (const k of ['raw', 'gzip', 'br'] as const) {
    sizes[k] += one[k];
    if (/\.(js|css)$/.test(f)) scriptsAndStyles[k] += one[k];
  }
}
console.log(`console/dist: ${files.join(', ')}`);
console.log(`JavaScript + CSS: ${scriptsAndStyles.raw} B raw, ${scriptsAndStyles.gzip} B gzip, ${scriptsAndStyles.br} B Brotli (budget 150 KB compressed)`);
console.log(`whole first load (page, icon too): ${sizes.raw} B raw, ${sizes.gzip} B gzip, ${sizes.br} B Brotli`);

const dir = await mkdtemp(join(tmpdir(), 'petstore-console-bench-'));
const db = { engine: 'sqlite' as const, path: join(dir, 'petstore.db') };
const seeded = await seed(db, pets);
const port = await freePort();
const start = npmStart(ROOT);
const env = {
  PATH: process.env.PATH,
  ...start.env,
  DATABASE_URL: `sqlite:${db.path}`,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '0',
};
const server = await startServer('service', [process.execPath, ...start.flags, 'src/main.ts'], env, port);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const base = `http://127.0.0.1:${port}`;

// A pet whose number is a word of no other name (no other id starts with it).
const ONE = fixturePet(Math.max(1, Math.floor(pets * 0.7777)));
const PAGES: readonly [string, (p: Page) => Promise<unknown>][] = [
  [
    'Pets, next page',
    async (p) => {
      await p.getByRole('button', { name: 'Next page' }).click();
      await p.getByText('Page 2').waitFor();
      await p.locator('tbody tr').nth(19).waitFor();
    },
  ],
  [
    // Typing pauses 300 ms before the console asks (console/src/pages/pets.tsx): counted here.
    'Pets, search a tenth of the store ("rex", typing pause included)',
    async (p) => {
      await p.getByLabel('Search').fill('rex');
      await p.locator('tbody tr', { hasText: 'Rex 191' }).waitFor(); // the 20th match, in id order
    },
  ],
  [
    'Pets, search one pet by its number (typing pause included)',
    async (p) => {
      await p.getByLabel('Search').fill(String(ONE.id));
      await p.locator('tbody tr', { hasText: ONE.name }).waitFor();
      await p.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    },
  ],
  ['Categories', (p) => p.locator('tbody tr').first().waitFor()],
  ['Orders', (p) => p.getByRole('table').waitFor()],
  ['Inventory', (p) => p.locator('dd[data-status="available"]').waitFor()],
  ['Keys', (p) => p.locator('tbody tr').first().waitFor()],
  ['Webhooks', (p) => p.getByRole('table').waitFor()],
  ['Events', (p) => p.getByRole('log').waitFor()],
];
const times = new Map<string, number[]>();
const record = (name: string, ms: number) => times.set(name, [...(times.get(name) ?? []), ms]);
try {
  for (let round = 0; round < rounds; round++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    let t0 = performance.now();
    await page.goto(`${base}/console/`);
    await page.getByLabel('API key').waitFor();
    record('first visit: sign-in form usable', performance.now() - t0);
    const transferred = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .reduce(
          (sum, e) => sum + (e as PerformanceResourceTiming).transferSize,
          (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).transferSize,
        ),
    );
    record('first visit: bytes transferred', transferred);
    await page.getByLabel('API key').fill(seeded.key);
    t0 = performance.now();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('tbody tr').nth(19).waitFor();
    record('sign in → Pets, first 20 rows', performance.now() - t0);
    for (const [name, ready] of PAGES) {
      t0 = performance.now();
      if (!name.startsWith('Pets')) await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
      await ready(page);
      record(name, performance.now() - t0);
    }
    await context.close();
  }
} finally {
  await browser.close();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `\n${pets} pets, ${rounds} rounds (new browser context each), load average ${(await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ')}`,
);
console.log('step\tmedian\tmin\tmax');
for (const [name, xs] of times) {
  const unit = name.includes('bytes') ? ' B' : ' ms';
  console.log(`${name}\t${Math.round(median(xs))}${unit}\t${Math.round(Math.min(...xs))}${unit}\t${Math.round(Math.max(...xs))}${unit}`);
}
