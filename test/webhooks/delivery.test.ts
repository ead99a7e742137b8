// Delivery through the real app to a real receiver: signatures (checked with the Standard Webhooks
// reference library), retries, the schedule, ordering, isolation, disabling, rotation, replay.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { buildTestApp, fixedClock, logCapture } from '../helpers/app.ts';
import { ENGINES, openTestStorage } from '../helpers/engines.ts';
import { eventually, startReceiver } from '../helpers/receiver.ts';
import { movableClock, TEST_ENV, webhookTest } from './helpers.ts';

const verify = (secret: string, r: { body: string; headers: Record<string, unknown> }) =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>);

for (const engine of ENGINES) {
  describe(`${engine}: webhook delivery`, () => {
    test('POSTs each event signed per Standard Webhooks 1.0: the reference library verifies it; the body is the feed item', async (t) => {
      const w = await webhookTest(t, engine);
      const hook = await w.register();
      const pet = await w.createPet();
      const [r] = await w.receiver.waitFor(1);
      const { actor, ...event } = verify(hook.secret, r) as { actor: { type: string; name: string } };
      assert.deepEqual(event, { id: r.headers['webhook-id'], type: 'pet.created', createdAt: JSON.parse(r.body).createdAt, data: pet });
      assert.deepEqual([actor.type, actor.name], ['key', 'test'], 'the signed body names who made the change');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['user-agent'], 'petstore-webhooks/1');
      assert.match(String(r.headers['webhook-id']), /^evt_[1-9][0-9]*$/);
      assert.ok(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000) < 5);
      assert.match(String(r.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/, 'one signature');
      const feed = await w.app.inject({ method: 'GET', url: '/v1/events', headers: w.auth });
      assert.equal(feed.body, `[${r.body}]`, 'byte for byte the feed item');
      assert.throws(() => verify(hook.secret, { ...r, body: r.body.replace('Rex', 'Rax') }), /No matching signature/);
      const [entry] = await eventually(async () => {
        const log = await w.deliveries(hook.id);
        return log[0]?.status === 'succeeded' ? log : undefined;
      });
      assert.deepEqual(
        { ...entry, id: 0, durationMs: 0, attemptedAt: '', createdAt: '' },
        {
          id: 0,
          type: 'attempt',
          eventId: r.headers['webhook-id'],
          attempt: 1,
          status: 'succeeded',
          httpStatus: 200,
          durationMs: 0,
          error: null,
          nextAttemptAt: null,
          attemptedAt: '',
          createdAt: '',
        },
      );
    });

    test('a receiver that fails twice then answers 200 gets three attempts with one webhook-id, each verifiable', async (t) => {
      const w = await webhookTest(t, engine, { answer: (_r, n) => (n <= 2 ? 500 : 200) });
      const hook = await w.register();
      await w.createPet();
      const attempts = await w.receiver.waitFor(3);
      assert.equal(new Set(attempts.map((r) => r.headers['webhook-id'])).size, 1);
      for (const r of attempts) assert.ok(verify(hook.secret, r));
      const log = await eventually(async () => {
        const l = await w.deliveries(hook.id);
        return l[0]?.status === 'succeeded' ? l : undefined;
      });
      assert.deepEqual(
        log.map((d) => [d.attempt, d.status, d.httpStatus, d.error]),
        [
          [3, 'succeeded', 200, null],
          [2, 'failed', 500, 'HTTP 500'],
          [1, 'failed', 500, 'HTTP 500'],
        ],
      );
      assert.equal(w.receiver.received.length, 3, 'nothing after the success');
    });

    test('a receiver that never answers: each attempt times out, the schedule is followed, the delivery ends failed', async (t) => {
      const timeout = 150;
      // Retries due one and two minutes after a failure: made once the test moves the clock there, not before.
      const schedule = [60_000, 120_000];
      const clock = movableClock();
      const w = await webhookTest(t, engine, {
        clock,
        answer: () => 'hang',
        env: { WEBHOOK_TIMEOUT_MS: String(timeout), WEBHOOK_RETRY_SCHEDULE_MS: `0,${schedule.join(',')}` },
      });
      const hook = await w.register();
      await w.createPet();
      for (let n = 1; n <= 3; n++) {
        await w.receiver.waitFor(n);
        const log = await eventually(async () => {
          const l = await w.deliveries(hook.id);
          return l.find((d) => d.attempt === n)?.status === 'failed' ? l : undefined;
        });
        const failed = log.find((d) => d.attempt === n)!;
        assert.deepEqual([failed.httpStatus, failed.error], [null, `no answer within ${timeout} ms`], `attempt ${n}`);
        assert.ok(failed.durationMs! >= timeout - 15 && failed.durationMs! < timeout + 1000, `attempt ${n}: duration ${failed.durationMs}`);
        if (n === 3) break;
        // The retry is scheduled from the failure: attempt n's nextAttemptAt = its attemptedAt + its duration + the delay (jitter is 0 here).
        const due = Date.parse(failed.nextAttemptAt!);
        const scheduled = due - Date.parse(failed.attemptedAt!) - failed.durationMs!;
        assert.ok(Math.abs(scheduled - schedule[n - 1]) <= 5, `retry ${n} scheduled ${scheduled} ms after the failure`);
        // Shortly before it is due (a tenth of the delay: room for the polls on a busy machine, whose
        // real time moves the clock too) the dispatcher looks again and again, and sends nothing.
        clock.moveTo(new Date(due - schedule[n - 1] / 10));
        await clock.looks(5);
        assert.equal(w.receiver.received.length, n, `attempt ${n + 1} is not made before it is due`);
        clock.moveTo(new Date(due));
      }
      const log = await w.deliveries(hook.id);
      assert.deepEqual(
        log.map((d) => [d.attempt, d.status, d.httpStatus, d.error, d.nextAttemptAt === null]),
        [
          [3, 'failed', null, `no answer within ${timeout} ms`, true],
          [2, 'failed', null, `no answer within ${timeout} ms`, false],
          [1, 'failed', null, `no answer within ${timeout} ms`, false],
        ],
      );
      // A day later the dispatcher has looked again and again: no fourth attempt.
      clock.moveTo(new Date(Date.parse(log[0].attemptedAt!) + 86_400_000));
      await clock.looks(5);
      assert.equal(w.receiver.received.length, 3, 'no fourth attempt');
    });

    test("a receiver's Retry-After on 429 and 503 delays the retry, never earlier than the schedule", async (t) => {
      // Retries one and ten minutes after a failure. The first answer (429) asks for two minutes, in
      // delay-seconds: the retry waits for them. The second (503) asks for a second, as an HTTP-date:
      // the schedule's ten minutes stand. The third is taken.
      const schedule = [60_000, 600_000];
      const clock = movableClock();
      const w = await webhookTest(t, engine, {
        clock,
        env: { WEBHOOK_RETRY_SCHEDULE_MS: `0,${schedule.join(',')}` },
        answer: (_r, n) =>
          n === 1
            ? { status: 429, headers: { 'retry-after': '120' } }
            : n === 2
              ? { status: 503, headers: { 'retry-after': new Date(clock.now().getTime() + 1_000).toUTCString() } }
              : 200,
      });
      const hook = await w.register();
      await w.createPet();
      for (const [n, waited] of [
        [1, 120_000],
        [2, schedule[1]],
      ] as const) {
        await w.receiver.waitFor(n);
        const failed = await eventually(async () => (await w.deliveries(hook.id)).find((d) => d.attempt === n && d.status === 'failed'));
        const due = Date.parse(failed.nextAttemptAt!);
        const scheduled = due - Date.parse(failed.attemptedAt!) - failed.durationMs!;
        assert.ok(Math.abs(scheduled - waited) <= 50, `retry ${n} scheduled ${scheduled} ms after the failure, not ${waited}`);
        // Ten seconds before it is due: past the minute the schedule alone would wait (retry 1), long
        // past the second the receiver asked for (retry 2); jitter is 0 here. Nothing is sent.
        clock.moveTo(new Date(due - 10_000));
        await clock.looks(5);
        assert.equal(w.receiver.received.length, n, `attempt ${n + 1} is not made before it is due`);
        clock.moveTo(new Date(due));
      }
      const received = await w.receiver.waitFor(3);
      assert.equal(new Set(received.map((r) => r.headers['webhook-id'])).size, 1);
      assert.deepEqual(
        (
          await eventually(async () => {
            const log = await w.deliveries(hook.id);
            return log[0].status === 'succeeded' ? log : undefined;
          })
        ).map((d) => [d.attempt, d.status, d.httpStatus]),
        [
          [3, 'succeeded', 200],
          [2, 'failed', 503],
          [1, 'failed', 429],
        ],
      );
    });

    test('first attempts go out in the feed order; an event being retried does not hold back the later ones', async (t) => {
      // The very first request (the first event's first attempt) fails; its retry is due a minute later,
      // and the clock stays short of it until the seven later events have been delivered.
      const clock = movableClock();
      const w = await webhookTest(t, engine, { clock, env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,60000' }, answer: (_r, n) => (n === 1 ? 503 : 200) });
      await w.register({ events: ['pet.created'] });
      await Promise.all(Array.from({ length: 8 }, (_, i) => w.createPet(`p${i}`)));
      await w.receiver.waitFor(8);
      clock.moveTo(new Date(Date.now() + 61_000));
      const received = await w.receiver.waitFor(9);
      const ids = received.map((r) => Number(String(r.headers['webhook-id']).slice(4)));
      const firsts = ids.filter((id, i) => ids.indexOf(id) === i);
      // The feed's order is commit order (docs/events.md); event ids follow it on SQLite only.
      const feed = await w.app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: w.auth });
      const order = (feed.json() as { id: string }[]).map((e) => Number(e.id.slice(4)));
      assert.deepEqual(firsts, order, `first attempts in the feed's order: ${ids}`);
      assert.equal(ids.at(-1), ids[0], `the failed first event was retried after the seven later ones: ${ids}`);
      assert.equal(new Set(ids).size, 8);
    });

    test('a dead endpoint does not delay the deliveries to a healthy one', async (t) => {
      // The dead endpoint's attempt would hold for the whole timeout; the healthy one gets its five
      // while that attempt is still in flight (not by a wall-clock bound, which a busy machine stretches).
      const timeout = 60_000;
      const w = await webhookTest(t, engine, { env: { WEBHOOK_TIMEOUT_MS: String(timeout) }, answer: (r) => (r.path === '/dead' ? 'hang' : 200) });
      const dead = await w.register({ url: `http://127.0.0.1:${w.receiver.port}/dead` });
      await w.register({ url: `http://127.0.0.1:${w.receiver.port}/healthy` });
      for (let i = 0; i < 5; i++) await w.createPet(`p${i}`);
      await w.receiver.waitFor(5, 30_000, (r) => r.path === '/healthy');
      assert.equal(w.receiver.received.filter((r) => r.path === '/dead').length, 1, 'the dead one holds its one attempt in flight');
      assert.deepEqual(
        (await w.deliveries(dead.id)).map((d) => [d.attempt, d.status]),
        Array.from({ length: 5 }, () => [1, 'pending']),
        'the dead endpoint has not timed out yet: nothing of it was recorded',
      );
      // Ending the test closes the receiver first, which resets the hanging connection: no 60 s wait.
    });

    test('rotation: for 24 h both secrets sign (two v1 signatures, each verifies), then only the new one', async (t) => {
      let offset = 0;
      const w = await webhookTest(t, engine, { clock: { now: () => new Date(Date.now() + offset) } });
      const hook = await w.register();
      const res = await w.app.inject({ method: 'POST', url: `/v1/webhooks/${hook.id}/rotate-secret`, headers: w.auth });
      assert.equal(res.statusCode, 200);
      const rotated = res.json();
      assert.notEqual(rotated.secret, hook.secret);
      assert.deepEqual({ ...rotated, secret: undefined }, { ...hook, secret: undefined });
      await w.createPet();
      const [r] = await w.receiver.waitFor(1);
      assert.equal(String(r.headers['webhook-signature']).split(' ').length, 2);
      assert.ok(verify(rotated.secret, r), 'the new secret verifies');
      assert.ok(verify(hook.secret, r), 'the old secret verifies');
      offset = 24 * 3_600_000 + 1_000;
      await w.createPet('Later');
      const [, late] = await w.receiver.waitFor(2);
      const signed = (secret: string) =>
        new Webhook(secret).sign(String(late.headers['webhook-id']), new Date(Number(late.headers['webhook-timestamp']) * 1000), late.body);
      assert.equal(late.headers['webhook-signature'], signed(rotated.secret), 'only the new secret signs after the overlap');
      assert.notEqual(late.headers['webhook-signature'], signed(hook.secret));
    });

    test('an endpoint whose every attempt failed for WEBHOOK_DISABLE_AFTER_HOURS is disabled (logged, logged in its deliveries); enabling it resumes with new events', async (t) => {
      const clock = fixedClock(new Date());
      const logs = logCapture();
      let up = false;
      const w = await webhookTest(t, engine, {
        clock,
        logger: { level: 'warn', stream: logs.stream },
        env: { WEBHOOK_DISABLE_AFTER_HOURS: '1', WEBHOOK_RETRY_SCHEDULE_MS: '0,60000,60000,60000' },
        answer: () => (up ? 200 : 500),
      });
      const hook = await w.register();
      await w.createPet('first');
      await w.receiver.waitFor(1);
      await eventually(async () => ((await w.deliveries(hook.id))[0]?.attempt === 2 ? true : undefined), 10_000, 'the retry scheduled');
      const t0 = clock.now().getTime();
      // The retry is due a minute later; at that time the endpoint has failed for over an hour.
      clock.set(new Date(t0 + 3_600_000 + 120_000));
      await w.receiver.waitFor(2);
      const log = await eventually(async () => {
        const l = await w.deliveries(hook.id);
        return l[0]?.type === 'webhook.disabled' ? l : undefined;
      });
      assert.equal(log[0].status, 'failed');
      assert.match(log[0].error!, /every attempt since .* failed/);
      assert.ok(log.every((d) => d.status !== 'pending'));
      const got = await w.app.inject({ method: 'GET', url: `/v1/webhooks/${hook.id}`, headers: w.auth });
      assert.equal(got.json().enabled, false);
      await eventually(async () =>
        logs.lines().some((l) => l.msg?.toString().startsWith('webhook endpoint disabled') && l.webhookId === hook.id) ? true : undefined,
      );
      await w.createPet('while disabled');
      up = true;
      const patched = await w.app.inject({ method: 'PATCH', url: `/v1/webhooks/${hook.id}`, headers: w.auth, payload: { enabled: true } });
      assert.equal(patched.json().enabled, true);
      await w.createPet('after');
      const all = await w.receiver.waitFor(3);
      assert.equal(JSON.parse(all[2].body).data.name, 'after', 'resumes with new events only');
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(w.receiver.received.length, 3);
    });

    test('a failed attempt logs one line with its outcome, never the secret nor the body', async (t) => {
      const logs = logCapture();
      const w = await webhookTest(t, engine, { logger: { level: 'info', stream: logs.stream }, env: { WEBHOOK_RETRY_SCHEDULE_MS: '0' }, answer: () => 502 });
      const hook = await w.register();
      await w.createPet('Secretive Name');
      await w.receiver.waitFor(1);
      const line = await eventually(async () => logs.lines().find((l) => l.msg === 'webhook delivery attempt failed'));
      assert.deepEqual(
        { ...line, time: 0, pid: 0, hostname: '', durationMs: 0, deliveryId: 0, eventId: '' },
        {
          level: 40,
          time: 0,
          pid: 0,
          hostname: '',
          component: 'webhooks',
          webhookId: hook.id,
          deliveryId: 0,
          eventId: '',
          attempt: 1,
          httpStatus: 502,
          error: 'HTTP 502',
          durationMs: 0,
          nextAttemptAt: null,
          msg: 'webhook delivery attempt failed',
        },
      );
      const text = logs.text();
      assert.ok(!text.includes(hook.secret) && !text.includes(hook.secret.slice(6)), 'no secret');
      assert.ok(!text.includes('Secretive Name'), 'no body');
    });

    test('retrying a delivery re-sends its event now, with the same webhook-id', async (t) => {
      let up = false;
      const w = await webhookTest(t, engine, { env: { WEBHOOK_RETRY_SCHEDULE_MS: '0' }, answer: () => (up ? 200 : 500) });
      const hook = await w.register();
      await w.createPet();
      const [first] = await w.receiver.waitFor(1);
      const [failed] = await eventually(async () => {
        const l = await w.deliveries(hook.id);
        return l[0]?.status === 'failed' ? l : undefined;
      });
      up = true;
      const res = await w.app.inject({ method: 'POST', url: `/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`, headers: w.auth });
      assert.equal(res.statusCode, 202, res.body);
      assert.deepEqual(
        { ...(res.json() as object), id: 0, createdAt: '', nextAttemptAt: '' },
        {
          id: 0,
          type: 'attempt',
          eventId: failed.eventId,
          attempt: 2,
          status: 'pending',
          httpStatus: null,
          durationMs: null,
          error: null,
          nextAttemptAt: '',
          attemptedAt: null,
          createdAt: '',
        },
      );
      const [, again] = await w.receiver.waitFor(2);
      assert.equal(again.headers['webhook-id'], first.headers['webhook-id']);
      assert.ok(verify(hook.secret, again));
    });

    test('SSRF at delivery: a name that now resolves to a private address (DNS rebinding) is refused before connecting', async (t) => {
      let lookups = 0;
      const resolve = async () => [{ address: lookups++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
      const w = await webhookTest(t, engine, { env: { WEBHOOK_ALLOWED_HOSTS: '' }, webhooks: { resolve } });
      const hook = await w.register({ url: `http://rebind.test:${w.receiver.port}/hooks` });
      await w.createPet();
      const [entry] = await eventually(async () => {
        const l = await w.deliveries(hook.id);
        return l.at(-1)?.status === 'failed' ? l.reverse() : undefined;
      });
      assert.equal(entry.error, 'refused to connect to rebind.test: 127.0.0.1 (loopback) is not a public address');
      assert.equal(entry.httpStatus, null);
      assert.ok(lookups >= 2, 'resolved again at delivery');
      assert.equal(w.receiver.received.length, 0, 'nothing reached the receiver');
    });

    test('SSRF at delivery: an address allowed when registered but not any more is refused at connection', async (t) => {
      const storage = await openTestStorage(t, engine);
      const receiver = await startReceiver(t);
      const before = await buildTestApp(t, { storage, env: TEST_ENV });
      const res = await before.app.inject({ method: 'POST', url: '/v1/webhooks', headers: before.auth, payload: { url: receiver.url } });
      assert.equal(res.statusCode, 201);
      await before.app.close();
      const after = await buildTestApp(t, { storage, env: { ...TEST_ENV, WEBHOOK_ALLOWED_HOSTS: '' }, webhooks: { pollMs: 10 } });
      await after.app.inject({ method: 'POST', url: '/v1/pets', headers: after.auth, payload: { name: 'Rex', categoryId: 1 } });
      const [entry] = await eventually(async () => {
        const l = (await after.app.inject({ method: 'GET', url: `/v1/webhooks/${res.json().id}/deliveries`, headers: after.auth })).json();
        return l.at(-1)?.status === 'failed' ? l.reverse() : undefined;
      });
      assert.equal(entry.error, 'refused to connect to 127.0.0.1: 127.0.0.1 (loopback) is not a public address');
      assert.equal(receiver.received.length, 0);
    });

    test('metrics: attempts by outcome, attempts in flight, the age of the oldest pending delivery', async (t) => {
      let n = 0;
      const w = await webhookTest(t, engine, {
        env: { WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_SCHEDULE_MS: '0,20' },
        answer: () => (++n === 1 ? 500 : n === 2 ? 200 : 'hang'),
      });
      await w.register();
      const metric = async (name: string) => {
        const text = (await w.app.inject({ method: 'GET', url: '/metrics' })).body;
        return Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
      };
      assert.equal(await metric('petstore_webhook_oldest_pending_seconds'), 0);
      await w.createPet('one');
      await w.receiver.waitFor(2);
      await eventually(async () => ((await metric('petstore_webhook_delivery_attempts_total{outcome="succeeded"}')) === 1 ? true : undefined));
      assert.equal(await metric('petstore_webhook_delivery_attempts_total{outcome="retrying"}'), 1);
      assert.equal(await metric('petstore_webhook_delivery_attempts_total{outcome="failed"}'), 0);
      await w.createPet('two'); // this one hangs until the timeout
      await w.receiver.waitFor(3);
      await eventually(async () => ((await metric('petstore_webhook_delivery_attempts_in_flight')) === 1 ? true : undefined));
      await new Promise((r) => setTimeout(r, 50));
      assert.ok((await metric('petstore_webhook_oldest_pending_seconds')) > 0.04, 'the pending delivery is getting older');
    });

    test('at most 64 KiB of a response is read: a huge 2xx answer still counts, and the next delivery goes out on a new connection', async (t) => {
      const w = await webhookTest(t, engine, { answer: (_r, n) => ({ status: 200, body: n === 1 ? 'x'.repeat(4 * 1024 * 1024) : 'ok' }) });
      const hook = await w.register();
      await w.createPet('big answer');
      await w.createPet('next');
      await w.receiver.waitFor(2);
      const log = await eventually(async () => {
        const l = await w.deliveries(hook.id);
        return l.length === 2 && l.every((d) => d.status === 'succeeded') ? l : undefined;
      });
      assert.deepEqual(
        log.map((d) => d.httpStatus),
        [200, 200],
      );
    });

    test('/metrics answers while the database does not: the pending-age gauge keeps its last value', async (t) => {
      const storage = await openTestStorage(t, engine);
      const { app } = await buildTestApp(t, { storage });
      assert.match((await app.inject({ method: 'GET', url: '/metrics' })).body, /^petstore_webhook_oldest_pending_seconds 0$/m);
      await storage.close();
      const res = await app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /^petstore_webhook_oldest_pending_seconds 0$/m);
    });

    test('an attempt whose event was purged before it could be made fails without a request', async (t) => {
      const storage = await openTestStorage(t, engine);
      const receiver = await startReceiver(t);
      const first = await buildTestApp(t, { storage, env: TEST_ENV, webhooks: { pollMs: 60_000 } });
      const hook = (await first.app.inject({ method: 'POST', url: '/v1/webhooks', headers: first.auth, payload: { url: receiver.url } })).json();
      await first.app.inject({ method: 'POST', url: '/v1/pets', headers: first.auth, payload: { name: 'Rex', categoryId: 1 } });
      await first.app.close(); // before its next poll: the attempt is still pending
      await storage.events.purge(new Date(Date.now() + 1_000));
      const second = await buildTestApp(t, { storage, env: TEST_ENV, webhooks: { pollMs: 10 } });
      await second.app.ready();
      const [entry] = await eventually(async () => {
        const l = await storage.webhooks.deliveries(hook.id, { limit: 10, beforeId: Number.MAX_SAFE_INTEGER });
        return l[0]?.status === 'failed' ? l : undefined;
      });
      assert.equal(entry.error, 'not attempted: the event is no longer kept (EVENT_RETENTION_DAYS)');
      assert.equal(entry.nextAttemptAt, null);
      assert.equal(receiver.received.length, 0);
    });

    test('a secret sealed under a WEBHOOK_SECRET_KEY no longer configured fails its deliveries, logged, until it is rotated', async (t) => {
      const storage = await openTestStorage(t, engine);
      const receiver = await startReceiver(t);
      const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
      const before = await buildTestApp(t, { storage, env: { ...TEST_ENV, WEBHOOK_SECRET_KEY: key(1) } });
      const hook = (await before.app.inject({ method: 'POST', url: '/v1/webhooks', headers: before.auth, payload: { url: receiver.url } })).json();
      await before.app.close();
      const logs = logCapture();
      const after = await buildTestApp(t, {
        storage,
        env: { ...TEST_ENV, WEBHOOK_SECRET_KEY: key(2), WEBHOOK_RETRY_SCHEDULE_MS: '0' },
        logger: { level: 'error', stream: logs.stream },
        webhooks: { pollMs: 10 },
      });
      await after.app.inject({ method: 'POST', url: '/v1/pets', headers: after.auth, payload: { name: 'Rex', categoryId: 1 } });
      const [entry] = await eventually(async () => {
        const l = await storage.webhooks.deliveries(hook.id, { limit: 10, beforeId: Number.MAX_SAFE_INTEGER });
        return l[0]?.status === 'failed' ? l : undefined;
      });
      assert.equal(entry.error, 'not sent: the signing secret cannot be opened (WEBHOOK_SECRET_KEY)');
      assert.ok(logs.lines().some((l) => String(l.msg).startsWith('cannot open the signing secret')));
      assert.equal(receiver.received.length, 0);
      const rotated = (await after.app.inject({ method: 'POST', url: `/v1/webhooks/${hook.id}/rotate-secret`, headers: after.auth })).json();
      await after.app.inject({ method: 'POST', url: '/v1/pets', headers: after.auth, payload: { name: 'Tom', categoryId: 1 } });
      const [r] = await receiver.waitFor(1);
      assert.equal(String(r.headers['webhook-signature']).split(' ').length, 1, 'the unreadable previous secret does not sign');
      assert.ok(verify(rotated.secret, r));
    });

    test('a name that no longer resolves fails the attempt: host does not resolve', async (t) => {
      let lookups = 0;
      const resolve = async () => (lookups++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : []);
      const w = await webhookTest(t, engine, { env: { WEBHOOK_ALLOWED_HOSTS: '', WEBHOOK_RETRY_SCHEDULE_MS: '0' }, webhooks: { resolve } });
      const hook = await w.register({ url: 'http://gone.test/hooks' });
      await w.createPet();
      const [entry] = await eventually(async () => {
        const l = await w.deliveries(hook.id);
        return l[0]?.status === 'failed' ? l : undefined;
      });
      assert.equal(entry.error, 'host does not resolve');
    });

    test('a redirect is a failed attempt: it is not followed', async (t) => {
      const w = await webhookTest(t, engine, {
        env: { WEBHOOK_RETRY_SCHEDULE_MS: '0' },
        answer: (r) => (r.path === '/hooks' ? { status: 307, headers: { location: `http://127.0.0.1:${w.receiver.port}/elsewhere` } } : 200),
      });
      const hook = await w.register();
      await w.createPet();
      const [entry] = await eventually(async () => {
        const l = await w.deliveries(hook.id);
        return l[0]?.status === 'failed' ? l : undefined;
      });
      assert.deepEqual([entry.httpStatus, entry.error], [307, 'HTTP 307']);
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(
        w.receiver.received.map((r) => r.path),
        ['/hooks'],
        'the Location was not requested',
      );
    });
  });
}
