import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startService } from '../helpers/process.ts';

const KEY = 'crash-test-key-0123456789abcdef';
const AUTH = { authorization: `Bearer ${KEY}` };
const KILLS = 4;
const WORKERS = 8;
const STATUSES = ['available', 'pending', 'sold'] as const;

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

async function allPets(base: string): Promise<Map<number, Pet>> {
  const pets = new Map<number, Pet>();
  let url: string | undefined = `${base}/v1/pets?limit=100`;
  while (url) {
    const res: Response = await fetch(url, { headers: AUTH });
    assert.equal(res.status, 200);
    for (const p of (await res.json()) as Pet[]) pets.set(p.id, p);
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    url = next && new URL(next, base).href;
  }
  return pets;
}

function integrityCheck(path: string): string {
  const db = new DatabaseSync(path);
  try {
    return (db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

test(`kill -9 under concurrent creates loses no acknowledged pet and leaves the database intact (${KILLS} kills)`, { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-crash-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'petstore.db');
  const env = { DATABASE_URL: `sqlite:${path}`, PETSTORE_API_KEYS: KEY, RATE_LIMIT_PER_MINUTE: '0' };
  const acknowledged: Pet[] = [];
  const deadline = Date.now() + 50_000;

  for (let round = 0; round <= KILLS; round++) {
    const svc = await startService(env);
    t.after(() => svc.stop('SIGKILL'));

    // After every restart: each pet ever answered 201 is there, with the data it was answered with.
    const stored = await allPets(svc.base);
    for (const pet of acknowledged) assert.deepEqual(stored.get(pet.id), pet, `pet ${pet.id} (${pet.name}) after ${round} kills`);
    if (round === KILLS) {
      assert.equal(await svc.stop('SIGTERM'), 0);
      break;
    }

    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const body = { name: `r${round}-w${w}-${i}`, categoryId: 1 + ((w + i) % 6), status: STATUSES[i % 3] };
        try {
          const res = await fetch(`${svc.base}/v1/pets`, {
            method: 'POST',
            headers: { ...AUTH, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          // A listed pet carries its entity tag (etag): the ETag it was answered with.
          if (res.status === 201) acknowledged.push({ ...((await res.json()) as Pet), etag: res.headers.get('etag') } as Pet);
          else assert.fail(`unexpected ${res.status}: ${await res.text()}`);
        } catch (err) {
          if (err instanceof assert.AssertionError) throw err;
          return; // the server was killed mid-request: not acknowledged
        }
      }
    };
    const before = acknowledged.length;
    const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    // The kill lands at a random moment of a running load: after the first acknowledged create (on
    // a starved machine that can take longer than the random delay alone), then 0–500 ms on.
    while (acknowledged.length === before && Date.now() < deadline) await sleep(20);
    await sleep(Math.random() * 500);
    const exited = once(svc.child, 'exit');
    svc.child.kill('SIGKILL');
    await exited;
    stop = true;
    await load;
    assert.ok(acknowledged.length > before, `round ${round}: the load created pets before the kill`);
    assert.equal(integrityCheck(path), 'ok', `integrity after kill ${round + 1}`);
  }
  t.diagnostic(`${acknowledged.length} acknowledged pets survived ${KILLS} kill -9`);
});

test('kill -9 while an import is applied: the restarted service finishes it, every row applied once (issue 39)', { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-crash-import-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'petstore.db');
  const env = { DATABASE_URL: `sqlite:${path}`, PETSTORE_API_KEYS: KEY, RATE_LIMIT_PER_MINUTE: '0' };
  const rows = 4000;
  const file = Array.from({ length: rows }, (_, i) => JSON.stringify({ name: `import-${i}`, categoryId: 1 + (i % 6), tags: ['imported'] })).join('\n');

  const svc = await startService(env);
  t.after(() => svc.stop('SIGKILL'));
  const upload = await fetch(`${svc.base}/v1/imports`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/x-ndjson' }, body: file });
  const job = (await upload.json()) as { id: number; valid: number };
  assert.equal(upload.status, 201);
  assert.equal(job.valid, rows);
  assert.equal((await fetch(`${svc.base}/v1/imports/${job.id}/apply`, { method: 'POST', headers: AUTH })).status, 202);
  // The kill lands once the first rows are applied.
  const progress = async () => (await (await fetch(`${svc.base}/v1/imports/${job.id}`, { headers: AUTH })).json()) as { created: number; state: string };
  while ((await progress()).created === 0) await sleep(10);
  const exited = once(svc.child, 'exit');
  svc.child.kill('SIGKILL');
  await exited;
  assert.equal(integrityCheck(path), 'ok');
  const db = new DatabaseSync(path);
  const left = (db.prepare("SELECT COUNT(*) AS n FROM import_rows WHERE outcome = 'pending'").get() as { n: number }).n;
  db.close();
  assert.ok(left > 0 && left < rows, `the kill landed mid-apply (${left} rows left)`);

  // Restarted, the service resumes the import by itself.
  const again = await startService(env);
  t.after(() => again.stop('SIGKILL'));
  const read = async () => (await (await fetch(`${again.base}/v1/imports/${job.id}`, { headers: AUTH })).json()) as { created: number; state: string };
  let done = await read();
  while (done.state !== 'done') {
    await sleep(20);
    done = await read();
  }
  assert.equal(done.created, rows);
  const names = [...(await allPets(again.base)).values()].map((p) => p.name).sort();
  assert.deepEqual(names, Array.from({ length: rows }, (_, i) => `import-${i}`).sort(), 'every row applied, none twice');
  let events = 0;
  for (let after = ''; ; ) {
    const page = (await (await fetch(`${again.base}/v1/events?type=pet.created&limit=100${after}`, { headers: AUTH })).json()) as { id: string }[];
    events += page.length;
    if (page.length < 100) break;
    after = `&after=${page.at(-1)!.id}`;
  }
  assert.equal(events, rows, 'one pet.created per animal');
  assert.equal(await again.stop('SIGTERM'), 0);
});
