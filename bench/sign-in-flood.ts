// Does a flood of sign-ins stop the shop? `node bench/sign-in-flood.ts [--seconds 20] [--flood 50]`.
// Serves the real app on 127.0.0.1 (SQLite in a temporary directory), then times `GET /v1/pets?limit=20`
// (list20, one request at a time, with an API key) for --seconds, first alone, then while --flood
// clients sign in over and over with a correct password (so each attempt that is let in hashes with
// Argon2id; those beyond the hash queue get 503). Prints list20's median and p99 for both phases,
// and how the sign-ins were answered.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createApiKey } from '../src/keys/key.service.ts';
import { SCOPES } from '../src/keys/key.types.ts';
import { PasswordHasher } from '../src/staff/staff.password.ts';
import { hashToken } from '../src/staff/staff.service.ts';
import { openStorage } from '../src/storage/open.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '20' }, flood: { type: 'string', default: '50' } } });
const seconds = Number(values.seconds);
const flood = Number(values.flood);
const PASSWORD = 'tabby-ferret-lantern';

const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-sign-in-'));
const storage = await openStorage({ engine: 'sqlite', path: join(dir, 'bench.db') });
// Rate limits off: the bench measures the hash queue, not the limiters.
const app = await buildApp({ config: loadConfig({ RATE_LIMIT_PER_MINUTE: '0' }), storage });
try {
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const { key } = await createApiKey(storage, 'bench', SCOPES, { owner: true });
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  for (let i = 0; i < 40; i++) await fetch(`${base}/v1/pets`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `Rex ${i}`, categoryId: 1 }) });
  const hash = await new PasswordHasher().hash(PASSWORD);
  await storage.transaction(async (tx) => {
    const p = await tx.staff.insert(
      {
        name: 'Bench',
        email: 'bench@shop.example',
        role: 'clerk',
        state: 'invited',
        invitation: { hash: hashToken('bench'), expiresAt: new Date(Date.now() + 3_600_000) },
      },
      new Date(),
    );
    await tx.staff.update(p!.id, { state: 'active', passwordHash: hash, invitation: null });
  });

  const list20 = async (until: number): Promise<number[]> => {
    const times: number[] = [];
    while (performance.now() < until) {
      const t0 = performance.now();
      const res = await fetch(`${base}/v1/pets?limit=20`, { headers: auth });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`list20 answered ${res.status}`);
      times.push(performance.now() - t0);
    }
    return times;
  };
  const answers = new Map<number, number>();
  const signIns = async (until: number): Promise<void> => {
    while (performance.now() < until) {
      const res = await fetch(`${base}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench@shop.example', password: PASSWORD }),
      });
      await res.arrayBuffer();
      answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
      // A refused client retries after a moment, as a browser's user would (not in a tight loop).
      if (res.status === 503) await new Promise((r) => setTimeout(r, 50));
    }
  };
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
  const report = (name: string, xs: number[]) =>
    console.log(`${name}: ${xs.length} requests, median ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`);

  console.log(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  report('list20 alone', await list20(performance.now() + seconds * 1000));
  const until = performance.now() + seconds * 1000;
  const [times] = await Promise.all([list20(until), ...Array.from({ length: flood }, () => signIns(until))]);
  report(`list20 during ${flood} concurrent sign-in loops`, times);
  console.log(
    `sign-ins answered: ${[...answers].map(([status, n]) => `${status} × ${n}`).join(', ')}; load average after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
} finally {
  await app.close();
  await storage.close();
  await rm(dir, { recursive: true, force: true });
}
