// The 100,000-row import of issue 39 on SQLite (a database file, fsync on every commit, as served):
// the file streamed over HTTP as JSON Lines (or CSV, as an export writes it), validated, then applied, with list20 requests running
// meanwhile. Reports the time of each step, the process's peak RSS, and list20's latency during the
// import. One process holds the service and the client (the client's share is small). A figure, not a test.
//
//   node bench/import.ts [--rows 100000] [--format jsonl|csv]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { Metrics } from '../src/http/ops/metrics.ts';
import { createApiKey } from '../src/keys/key.service.ts';
import { SCOPES } from '../src/keys/key.types.ts';
import { petCsvHeader, petCsvRecord } from '../src/pets/pet.csv.ts';
import type { Pet } from '../src/pets/pet.schemas.ts';
import { openSqlite } from '../src/storage/sqlite/sqlite.storage.ts';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, format: { type: 'string', default: 'jsonl' } } });
const rows = Number(values.rows);
const csv = values.format === 'csv';

const dir = mkdtempSync(join(tmpdir(), 'petstore-import-bench-'));
const storage = openSqlite({ path: join(dir, 'petstore.db') });
const app = await buildApp({ config: loadConfig({ RATE_LIMIT_PER_MINUTE: '0' }), storage, metrics: new Metrics(storage, { processMetrics: false }) });
const base = `${await app.listen({ port: 0, host: '127.0.0.1' })}/v1`;
const { key } = await createApiKey(storage, 'bench', SCOPES, { owner: true });
const auth = { authorization: `Bearer ${key}` };
const CATEGORIES = ['Dogs', 'Cats', 'Birds', 'Fish', 'Reptiles', 'Small mammals'];

/** A stock list as a shop would have it: every member of the record, a unique microchip number per animal. */
function* file(): Generator<string> {
  let lines: string[] = [];
  if (csv) yield petCsvHeader();
  for (let i = 1; i <= rows; i++) {
    const row = {
      name: `Pet ${i}`,
      category: CATEGORIES[i % CATEGORIES.length],
      status: 'available',
      tags: ['imported', `batch-${i % 20}`],
      price: { amount: 10_000 + (i % 5_000) },
      description: 'A healthy animal from the imported stock list, vaccinated and dewormed.',
      breed: { primary: 'Labrador Retriever' },
      sex: i % 2 ? 'male' : 'female',
      colour: 'black',
      birthDate: '2026-05-01',
      microchip: String(985_000_000_000_000 + i),
      acquiredAt: '2026-07-01',
      source: { kind: 'breeder', name: 'Green Acres Kennels', address: '12 Farm Road, Albany, NY 12207' },
    };
    // As an export writes it: the category by name (its id here is the index of the name, plus one).
    const { category, ...pet } = row;
    lines.push(
      csv ? petCsvRecord({ ...pet, categoryId: CATEGORIES.indexOf(category) + 1 } as unknown as Pet, (id) => CATEGORIES[id - 1]) : `${JSON.stringify(row)}\n`,
    );
    if (lines.length === 200) {
      yield lines.join('');
      lines = [];
    }
  }
  if (lines.length > 0) yield lines.join('');
}

// list20 requests, one after the other, until stopped: their latencies.
let listing = true;
const latencies: number[] = [];
const lister = (async () => {
  while (listing) {
    const t0 = performance.now();
    const res = await fetch(`${base}/pets?limit=20`, { headers: auth });
    await res.arrayBuffer();
    latencies.push(performance.now() - t0);
  }
})();

const started = performance.now();
const body = Readable.toWeb(Readable.from(file())) as ReadableStream<Uint8Array>;
const upload = await fetch(`${base}/imports`, {
  method: 'POST',
  headers: { ...auth, 'content-type': csv ? 'text/csv' : 'application/x-ndjson' },
  body,
  duplex: 'half',
} as RequestInit);
const job = (await upload.json()) as { id: number; state: string; rows: number; invalid: number };
const validated = performance.now();
if (upload.status !== 201 || job.state !== 'ready' || job.rows !== rows || job.invalid !== 0)
  throw new Error(`upload: ${upload.status} ${JSON.stringify(job).slice(0, 500)}`);
const apply = await fetch(`${base}/imports/${job.id}/apply`, { method: 'POST', headers: auth });
if (apply.status !== 202) throw new Error(`apply: ${apply.status} ${await apply.text()}`);
let done: { state: string; created: number };
for (;;) {
  await new Promise((resolve) => setTimeout(resolve, 200));
  done = (await (await fetch(`${base}/imports/${job.id}`, { headers: auth })).json()) as { state: string; created: number };
  if (done.state === 'done') break;
}
const applied = performance.now();
listing = false;
await lister;
if (done.created !== rows) throw new Error(`applied: ${JSON.stringify(done).slice(0, 500)}`);

const sorted = latencies.sort((a, b) => a - b);
const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(1);
console.log(
  JSON.stringify({
    rows,
    format: csv ? 'csv' : 'jsonl',
    validateSeconds: ((validated - started) / 1000).toFixed(1),
    applySeconds: ((applied - validated) / 1000).toFixed(1),
    totalSeconds: ((applied - started) / 1000).toFixed(1),
    // CPU time of the whole process (service and clients): what a busy machine does not stretch.
    cpuSeconds: ((process.cpuUsage().user + process.cpuUsage().system) / 1e6).toFixed(1),
    loadAverage: loadavg()[0].toFixed(1),
    peakRssMiB: (process.resourceUsage().maxRSS / 1024).toFixed(0),
    list20: { requests: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted.at(-1)?.toFixed(1) },
  }),
);
await app.close();
rmSync(dir, { recursive: true, force: true });
