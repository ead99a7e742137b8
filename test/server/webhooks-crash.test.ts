// kill -9 of a real service process while pets are created and the webhook receiver is down:
// after a restart, with the receiver up, every pet.created event is delivered at least once.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort, startService, type Started } from '../helpers/process.ts';
import { eventually, startReceiver } from '../helpers/receiver.ts';

const KEY = 'webhook-crash-test-key-0123456789';
const AUTH = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const PETS = 200;
const WORKERS = 8;

async function eventIds(base: string): Promise<string[]> {
  const ids: string[] = [];
  let url: string | undefined = `${base}/v1/events?type=pet.created&limit=100`;
  while (url) {
    const res: Response = await fetch(url, { headers: AUTH });
    assert.equal(res.status, 200);
    for (const e of (await res.json()) as { id: string }[]) ids.push(e.id);
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    url = next && new URL(next, base).href;
  }
  return ids;
}

/** Creates pets with WORKERS concurrent clients until `until()` says stop; counts the 201s. */
async function createPets(svc: Started, until: () => boolean, acknowledged: { n: number }): Promise<void> {
  const worker = async () => {
    while (!until()) {
      try {
        const res = await fetch(`${svc.base}/v1/pets`, {
          method: 'POST',
          headers: AUTH,
          body: JSON.stringify({ name: `pet ${acknowledged.n}`, categoryId: 1 }),
        });
        if (res.status !== 201) assert.fail(`unexpected ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
        acknowledged.n++;
      } catch (err) {
        if (err instanceof assert.AssertionError) throw err;
        return; // killed mid-request
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
}

test(`kill -9 while ${PETS} pets are created and the receiver is down: after restart every pet.created is delivered at least once`, {
  timeout: 120_000,
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-webhook-crash-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const receiver = await startReceiver(t, () => 200, { port: await freePort(), listening: false });
  const env = {
    DATABASE_URL: `sqlite:${join(dir, 'petstore.db')}`,
    PETSTORE_API_KEYS: KEY,
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1:*',
    WEBHOOK_TIMEOUT_MS: '1000',
    // Many quick retries: the receiver stays down for a few seconds.
    WEBHOOK_RETRY_SCHEDULE_MS: ['0', ...Array<string>(49).fill('250')].join(','),
  };

  const first = await startService(env);
  t.after(() => first.stop('SIGKILL'));
  const registered = await fetch(`${first.base}/v1/webhooks`, {
    method: 'POST',
    headers: AUTH,
    body: JSON.stringify({ url: receiver.url, events: ['pet.created'] }),
  });
  assert.equal(registered.status, 201, await registered.clone().text());
  const acknowledged = { n: 0 };
  const killAt = PETS / 2;
  const load = createPets(first, () => acknowledged.n >= killAt, acknowledged);
  await eventually(async () => (acknowledged.n >= killAt ? true : undefined), 30_000, 'half the pets created');
  const exited = once(first.child, 'exit');
  first.child.kill('SIGKILL');
  await exited;
  await load;
  assert.equal(receiver.received.length, 0, 'the receiver was down');

  const second = await startService(env);
  t.after(() => second.stop('SIGKILL'));
  await createPets(second, () => acknowledged.n >= PETS, acknowledged);
  const ids = await eventIds(second.base);
  assert.ok(ids.length >= PETS, `${ids.length} pet.created events for ${acknowledged.n} acknowledged pets`);

  await receiver.listen();
  const delivered = new Set<string>();
  await eventually(
    async () => {
      for (const r of receiver.received) delivered.add(String(r.headers['webhook-id']));
      return ids.every((id) => delivered.has(id)) ? true : undefined;
    },
    60_000,
    'every pet.created event delivered',
  );
  t.diagnostic(`${ids.length} events delivered in ${receiver.received.length} requests after a kill -9 at ${killAt} acknowledged pets`);
  assert.equal(await second.stop('SIGTERM'), 0);
});
