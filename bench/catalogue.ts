// Search and sort latency of the storage, without HTTP and without the read caches in the way:
// `npm run bench:catalogue -- --engine sqlite|postgres --size 1k|1m`. Seeds a fresh store the way
// `npm run bench` does (bench/seed.ts: in bulk, by the database), then times each listing one at
// a time, `--samples` times, each sample asking for a different page or word so no cache answers
// (SQLite's page cache would; the figures are the query's). Prints median and p99 per query.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { DatabaseConfig } from '../src/config.ts';
import { petListing } from '../src/pets/pet.listing.ts';
import type { ListPetsQuery } from '../src/pets/pet.schemas.ts';
import { openStorage } from '../src/storage/open.ts';
import { SIZES, type SizeName } from './fixture.ts';
import { openBenchPostgres } from './postgres.ts';
import { seed } from './seed.ts';

const { values } = parseArgs({
  options: { engine: { type: 'string', default: 'sqlite' }, size: { type: 'string', default: '1k' }, samples: { type: 'string', default: '200' } },
});
const size = SIZES[values.size as SizeName];
if (size === undefined || (values.engine !== 'sqlite' && values.engine !== 'postgres')) throw new Error('usage: --engine sqlite|postgres --size 1k|200k|1m');
const samples = Number(values.samples);

// Each query of a sample i: a different word, or a page further on, so no answer is reused.
const QUERIES: Record<string, (i: number) => ListPetsQuery> = {
  'q=<one pet’s number> (1 match)': (i) => ({ q: String(1 + ((i * 7919) % size)) }),
  'q=rex (a tenth of the store), page 1': () => ({ q: 'rex' }),
  'q=rex&status=available, page 1': () => ({ q: 'rex', status: 'available' }),
  'q=be (prefix of bella: a tenth)': () => ({ q: 'be' }),
  'sort=name, page 1': () => ({ sort: 'name' }),
  'sort=-name&status=available, page 1': () => ({ sort: '-name', status: 'available' }),
  'sort=-createdAt&categoryId=3, page 1': () => ({ sort: '-createdAt', categoryId: 3 }),
  'sort=price&status=sold, page 1': () => ({ sort: 'price', status: 'sold' }),
  'sort=-id, page 1': () => ({ sort: '-id' }),
  // Issue 33: a search or a tag filter in another order than id.
  'q=rex&sort=price (a tenth), page 1': () => ({ q: 'rex', sort: 'price' }),
  'q=<one pet’s number>&sort=-name, page 1': (i) => ({ q: String(1 + ((i * 7919) % size)), sort: '-name' }),
};

const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-catalogue-'));
const pg = values.engine === 'postgres' ? await openBenchPostgres(process.env) : undefined;
const db: DatabaseConfig = pg ? { engine: 'postgres', url: pg.url, poolSize: 2 } : { engine: 'sqlite', path: join(dir, 'bench.db') };
try {
  const started = performance.now();
  await seed(db, size);
  console.log(
    `seeded ${size.toLocaleString('en')} pets (${values.engine}) in ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const storage = await openStorage(db);
  try {
    console.log(`| query (${values.engine}, ${values.size}) | median | p99 | pets on page 1 |\n|---|--:|--:|--:|`);
    for (const [label, query] of Object.entries(QUERIES)) {
      const times: number[] = [];
      let found = 0;
      for (let i = 0; i < samples + 5; i++) {
        const listing = petListing(query(i));
        const limit = 20;
        const t = performance.now();
        const rows = await storage.pets.list({ ...listing.query, limit: limit + 1 }).then((page) => page.pets);
        const ms = performance.now() - t;
        if (i >= 5) times.push(ms); // the first few warm the connection and the statement cache
        found = Math.min(rows.length, limit);
        // A commit that changes a row: SQLite's read cache starts over, so the next read is a query.
        await storage.transaction(async (tx) => void (await tx.categories.insert(`bench ${label} ${i}`)));
      }
      times.sort((a, b) => a - b);
      const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(2);
      console.log(`| ${label} | ${at(0.5)} ms | ${at(0.99)} ms | ${found} |`);
    }
  } finally {
    await storage.close();
  }
} finally {
  await pg?.close();
  await rm(dir, { recursive: true, force: true });
}
