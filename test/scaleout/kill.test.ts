// kill -9 of a service during a burst of creates with Idempotency-Keys, a webhook receiver and a
// reader paging the feed: every acknowledged create kept, every retry of a key answered within
// 10 s (no five-minute block), one pet and one event per key, the feed without gaps or
// reorderings, every event delivered (duplicates counted). PostgreSQL: one of two instances is
// killed and the other takes over; SQLite: its one instance, restarted. docs/deploy.md, "Takeover".
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, test, type TestContext } from 'node:test';
import { ENGINES, type Engine, serviceDatabaseUrl } from '../helpers/engines.ts';
import { startService, type Started } from '../helpers/process.ts';
import { eventually, startReceiver } from '../helpers/receiver.ts';

const KEY = 'kill-test-key-0123456789abcdefgh';
const AUTH = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const WORKERS = 8;
const KILL_AFTER = 30; // creates acknowledged by the instance that is killed
const ANSWER_WITHIN_MS = 10_000;
const CONCURRENCY = 8; // WEBHOOK_CONCURRENCY: at most this many attempts were in flight in the killed process

interface Pet {
  readonly id: number;
  readonly name: string;
}

interface FeedEvent {
  readonly id: string;
  readonly data: Pet;
}

async function create(base: string, key: string): Promise<Response> {
  return fetch(`${base}/v1/pets`, { method: 'POST', headers: { ...AUTH, 'idempotency-key': key }, body: JSON.stringify({ name: key, categoryId: 1 }) });
}

/** Every page of `path` (a list the service pages with Link: rel="next"). */
async function everything<T>(base: string, path: string): Promise<T[]> {
  const items: T[] = [];
  let url: string | undefined = `${base}${path}`;
  while (url) {
    const res: Response = await fetch(url, { headers: AUTH });
    assert.equal(res.status, 200);
    items.push(...((await res.json()) as T[]));
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    url = next && new URL(next, base).href;
  }
  return items;
}

/** Pages the feed with after= for as long as `reading()`, through any instance `base()` names; what it read, in order. */
function feedReader(base: () => string, reading: () => boolean): { seen: FeedEvent[]; done: Promise<void> } {
  const seen: FeedEvent[] = [];
  const done = (async () => {
    for (let last = true; reading() || last; ) {
      if (!reading()) last = false; // one more pass after the writes ended
      try {
        for (;;) {
          const after = seen.at(-1)?.id;
          const res = await fetch(`${base()}/v1/events?type=pet.created&limit=50${after ? `&after=${after}` : ''}`, { headers: AUTH });
          if (res.status !== 200) break;
          const page = (await res.json()) as FeedEvent[];
          seen.push(...page);
          if (page.length < 50) break;
        }
      } catch {
        // the instance read from is down (SQLite's restart): read again shortly
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return { seen, done };
}

async function killScenario(t: TestContext, engine: Engine): Promise<void> {
  const receiver = await startReceiver(t, () => 200);
  const url = await serviceDatabaseUrl(t, engine);
  const env = {
    DATABASE_URL: url,
    DATABASE_POOL_SIZE: '4',
    PETSTORE_API_KEYS: KEY,
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1:*',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_CONCURRENCY: String(CONCURRENCY),
  };
  const start = async () => {
    const svc = await startService(env);
    t.after(() => svc.stop('SIGKILL'));
    return svc;
  };
  // PostgreSQL: a second instance on the same database keeps serving (and writing) throughout.
  const [victim, survivor] = await Promise.all([start(), engine === 'postgres' ? start() : undefined]);
  const registered = await fetch(`${victim.base}/v1/webhooks`, {
    method: 'POST',
    headers: AUTH,
    body: JSON.stringify({ url: receiver.url, events: ['pet.created'] }),
  });
  assert.equal(registered.status, 201, await registered.text());

  const acknowledged = new Map<string, Pet>(); // key → the pet its 201 reported
  const unanswered = new Set<string>(); // keys whose request the kill cut off
  let current: Started = victim;
  let writing = true;
  let reading = true;
  const reader = feedReader(
    () => (survivor ?? current).base,
    () => reading,
  );
  const worker = async (svc: Started, name: string, untilKilled: boolean) => {
    for (let i = 0; writing; i++) {
      const key = `${name}-${i}`;
      try {
        const res = await create(svc.base, key);
        assert.equal(res.status, 201, await res.clone().text());
        acknowledged.set(key, (await res.json()) as Pet);
      } catch (err) {
        if (err instanceof assert.AssertionError) throw err;
        unanswered.add(key);
        if (untilKilled) return;
      }
    }
  };
  const onVictim = Array.from({ length: WORKERS }, (_, w) => worker(victim, `v${w}`, true));
  const onSurvivor = survivor ? Array.from({ length: WORKERS / 2 }, (_, w) => worker(survivor, `s${w}`, false)) : [];
  const killedAfter = () => [...acknowledged.keys()].filter((k) => k.startsWith('v')).length;
  await eventually(async () => (killedAfter() >= KILL_AFTER ? true : undefined), 60_000, `${KILL_AFTER} creates acknowledged`);
  const exited = once(victim.child, 'exit');
  victim.child.kill('SIGKILL');
  await exited;
  await Promise.all(onVictim);

  // The retries: on PostgreSQL to the surviving instance at once (timed from the kill), on SQLite
  // to the restarted one (timed from its restart).
  const restarted = survivor ? undefined : await start();
  if (restarted) current = restarted;
  const retryAt = (survivor ?? restarted)!.base;
  const from = performance.now();
  const waits: number[] = [];
  let inUse = 0;
  for (const key of unanswered) {
    for (;;) {
      const res = await create(retryAt, key);
      if (res.status === 409) {
        inUse++;
        const wait = Number(res.headers.get('retry-after'));
        assert.ok(wait >= 1 && wait <= 10, `Retry-After ${wait}`);
        await new Promise((r) => setTimeout(r, wait * 1000));
        continue;
      }
      assert.equal(res.status, 201, await res.clone().text());
      waits.push(performance.now() - from);
      acknowledged.set(key, (await res.json()) as Pet);
      break;
    }
  }
  assert.ok(Math.max(0, ...waits) <= ANSWER_WITHIN_MS, `every retry answered within ${ANSWER_WITHIN_MS} ms: ${waits.map(Math.round)}`);
  writing = false;
  await Promise.all(onSurvivor);
  const check = (survivor ?? restarted)!.base;
  const pets = await everything<Pet>(check, '/v1/pets?limit=100');
  // PostgreSQL lists an event once every older transaction on the server has ended (docs/events.md),
  // so the last events can reach the feed a moment after the writes: the reader pages on until it
  // holds one event per pet (a gap would keep it short and fail here), then makes its last pass.
  await eventually(async () => (reader.seen.length >= pets.length ? true : undefined), 10_000, 'the reader paged one event per pet');
  reading = false;
  await reader.done;

  // Every acknowledged create kept, with what it was answered with; one pet per key.
  const byName = Map.groupBy(pets, (p) => p.name);
  for (const [key, pet] of acknowledged)
    assert.deepEqual(
      byName.get(key)?.map((p) => p.id),
      [pet.id],
      `key ${key}: one pet, the acknowledged one`,
    );
  // One event per key, and the reader's pages are the feed: nothing appeared behind its position.
  const feed = await everything<FeedEvent>(check, '/v1/events?type=pet.created&limit=100');
  const eventsByName = Map.groupBy(feed, (e) => e.data.name);
  for (const key of acknowledged.keys()) assert.equal(eventsByName.get(key)?.length, 1, `key ${key}: one pet.created`);
  assert.equal(feed.length, pets.length, 'one event per pet');
  assert.deepEqual(
    reader.seen.map((e) => e.id),
    feed.map((e) => e.id),
    'the reader paged the feed without a gap or a reordering',
  );

  // Every event delivered; duplicates are those the killed process had sent but not recorded.
  const delivered = new Map<string, number>();
  await eventually(
    async () => {
      delivered.clear();
      for (const r of receiver.received) delivered.set(String(r.headers['webhook-id']), (delivered.get(String(r.headers['webhook-id'])) ?? 0) + 1);
      return feed.every((e) => delivered.has(e.id)) ? true : undefined;
    },
    30_000,
    'every event delivered',
  );
  const duplicates = [...delivered.values()].reduce((n, c) => n + c - 1, 0);
  assert.ok(duplicates <= CONCURRENCY, `${duplicates} duplicate deliveries: at most the ${CONCURRENCY} attempts in flight in the killed process`);
  t.diagnostic(
    `${engine}: ${acknowledged.size} keys, ${unanswered.size} cut off by the kill, retried: slowest answer ${Math.round(Math.max(0, ...waits))} ms after the ${survivor ? 'kill' : 'restart'}, ${inUse} × idempotency_key_in_use; ${feed.length} events, ${receiver.received.length} deliveries, ${duplicates} duplicates`,
  );
}

describe('kill -9 during a burst of idempotent creates', () => {
  for (const engine of ENGINES) {
    const setup = engine === 'postgres' ? 'one of two instances on one database' : 'the one instance, restarted';
    test(`${engine}: ${setup}`, { timeout: 180_000 }, (t) => killScenario(t, engine));
  }
});
