// What one photo upload costs the process: the attacks of issue 34 (item 2) and an ordinary large
// photo, each processed by the service's own image path (src/photos/photo.image.ts) in a fresh
// process, so that its peak memory is its own. A figure, not a test: it reports, per upload, the
// growth of the process's peak RSS over what it held just before, and the CPU time (user + system)
// the upload took, and says nothing passes or fails (docs/api.md, "Photos", states the budget).
//
//   node bench/photo-budget.ts [--runs 3]
//
// The images are made first, by a child of their own, and handed to each measuring child as a
// file: a process's peak RSS is inherited by the processes it forks, so the parent stays small.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, one: { type: 'string' }, file: { type: 'string' }, make: { type: 'string' } },
});

if (values.one !== undefined) {
  // The child: sharp loaded and warmed by one small upload, then the measured one.
  const { processPhoto } = await import('../src/photos/photo.image.ts');
  const { solid } = await import('../test/helpers/images.ts');
  const limits = { maxPixels: 40_000_000 };
  await processPhoto(await solid('png'), limits);
  const bytes = await readFile(values.file!);
  const rssBefore = process.memoryUsage().rss;
  const cpuBefore = process.cpuUsage();
  let outcome = 'stored';
  try {
    await processPhoto(bytes, limits);
  } catch (err) {
    outcome = (err as { code?: string }).code ?? String(err);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ outcome, rssMiB: (peak - rssBefore) / 1048576, cpuS: (cpu.user + cpu.system) / 1e6 }));
  process.exit(0);
}

const { greyPng, noise, rgba16Png, solid, webpBomb } = await import('../test/helpers/images.ts');
const ATTACKS: [string, () => Promise<Buffer> | Buffer][] = [
  // The attacks of issue 34, item 2.
  ['PNG 39,000,000 × 1 grey', () => greyPng(39_000_000, 1)],
  ['PNG 1 × 39,000,000 grey', () => greyPng(1, 39_000_000)],
  ['WebP 10 frames of 2,000²', () => webpBomb(10, 2000)],
  ['WebP 100 frames of 632²', () => webpBomb(100, 632)],
  ['PNG 6,000 × 6,000 RGBA 16-bit', () => rgba16Png(6000, 6000)],
  // The most each budget lets through.
  ['PNG 10,000 × 500 grey (longest side, widest ratio)', () => greyPng(10_000, 500)],
  ['PNG 6,324 × 6,324 grey (PHOTO_MAX_PIXELS)', () => greyPng(6324, 6324)],
  ['PNG 2,828 × 2,828 RGBA 16-bit (PNG_MAX_DECODED_BYTES)', () => rgba16Png(2828, 2828)],
  ['PNG 4,618 × 4,618 RGB (PNG_MAX_DECODED_BYTES)', () => solid('png', { width: 4618, height: 4618 })],
  ['JPEG 6,324 × 6,324 (PHOTO_MAX_PIXELS)', () => solid('jpeg', { width: 6324, height: 6324 })],
  ['WebP 6,324 × 6,324 (PHOTO_MAX_PIXELS)', () => solid('webp', { width: 6324, height: 6324 })],
  ['WebP 2 frames of 2,236² (ANIMATION_MAX_PIXELS)', () => webpBomb(2, 2236)],
  ['WebP 4 frames of 1,581² (ANIMATION_MAX_PIXELS)', () => webpBomb(4, 1581)],
  ['WebP 10 frames of 1,000² (ANIMATION_MAX_PIXELS)', () => webpBomb(10, 1000)],
  ['WebP 100 frames of 316² (ANIMATION_MAX_PIXELS)', () => webpBomb(100, 316)],
  // Ordinary uploads.
  ['JPEG 3,600 × 2,400 noise (a camera photo)', () => noise('jpeg', 3600, 2400)],
  ['WebP 40 frames of 500²', () => webpBomb(40, 500)],
];

if (values.make !== undefined) {
  for (const [i, [, make]] of ATTACKS.entries()) await writeFile(join(values.make, String(i)), await make());
  process.exit(0);
}

const dir = await mkdtemp(join(tmpdir(), 'petstore-photo-budget-'));
const self = fileURLToPath(import.meta.url);
const runs = Number(values.runs);
try {
  execFileSync(process.execPath, [self, '--make', dir]);
  console.log(`one upload per fresh process, ${runs} runs each: median (min–max)`);
  console.log('image\tbytes\toutcome\tpeak RSS growth MiB\tCPU s');
  for (const [i, [name]] of ATTACKS.entries()) {
    const file = join(dir, String(i));
    const { size } = await stat(file);
    const results = Array.from({ length: runs }, () => JSON.parse(execFileSync(process.execPath, [self, '--one', name, '--file', file], { encoding: 'utf8' })));
    const spread = (key: 'rssMiB' | 'cpuS', digits: number) => {
      const sorted = results.map((r) => r[key] as number).sort((a, b) => a - b);
      return `${sorted[Math.floor(sorted.length / 2)].toFixed(digits)} (${sorted[0].toFixed(digits)}–${sorted[sorted.length - 1].toFixed(digits)})`;
    };
    console.log(`${name}\t${size}\t${results[0].outcome}\t${spread('rssMiB', 1)}\t${spread('cpuS', 2)}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
