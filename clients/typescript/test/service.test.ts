// The client against a real service process (node src/main.ts, as `npm start` runs it), on each engine
// where storage is involved: paging and idempotent creates.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ENGINES, type Engine } from '../../../test/helpers/engines.ts';
import { solid } from '../../../test/helpers/images.ts';
import { startTcpProxy } from '../../../test/helpers/tcp-proxy.ts';
import { Petstore, PetstoreConnectionError, PetstoreError, type Pet } from '../src/index.ts';
import { error } from './helpers/fake-fetch.ts';
import { API_KEY, startPetstore, type Service } from './helpers/service.ts';

/** Rejects with the PetstoreError a call throws (fails when it does not throw one). */
async function failure(call: Promise<unknown>): Promise<PetstoreError> {
  const err = await call.then(
    () => assert.fail('expected a PetstoreError'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof PetstoreError, `a PetstoreError, not ${String(err)}`);
  return err;
}

/** Runs `work` for each item with at most `width` at a time. */
async function inParallel<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!);
      }
    }),
  );
  return out;
}

// One service per engine for the file, started when first needed: a start costs more CPU than the
// tests that use it, and none of them needs a fresh one (each makes its own pets and orders).
const services = new Map<Engine, Promise<Service>>();
function serviceOn(engine: Engine): Promise<Service> {
  let svc = services.get(engine);
  if (svc === undefined) {
    svc = startPetstore({ engine });
    services.set(engine, svc);
  }
  return svc;
}
after(() => Promise.all([...services.values()].map((svc) => svc.then((s) => s.stop()).catch(() => undefined))));

for (const engine of ENGINES) {
  describe(`against the service on ${engine}`, () => {
    let svc: Service;
    let petstore: Petstore;
    before(async () => {
      svc = await serviceOn(engine);
      petstore = new Petstore({ baseUrl: svc.baseUrl, apiKey: API_KEY });
    });

    test('iterate() walks 250 available pets across pages, each once, in id order, the filter kept on every page', async () => {
      // 260 pets, every 26th sold: 250 available, spread over the six categories.
      const created = await inParallel(
        Array.from({ length: 260 }, (_, i) => i),
        8,
        (i) => petstore.pets.create({ name: `pet-${i}`, categoryId: 1 + (i % 6), status: i % 26 === 0 ? 'sold' : 'available' }),
      );
      const available = created.filter((p) => p.status === 'available');
      assert.equal(available.length, 250);
      const seen: Pet[] = [];
      for await (const pet of petstore.pets.iterate({ status: 'available' })) seen.push(pet);
      assert.equal(seen.length, 250);
      assert.deepEqual(new Set(seen.map((p) => p.id)), new Set(available.map((p) => p.id)));
      assert.deepEqual(
        seen.map((p) => p.id),
        available.map((p) => p.id).sort((a, b) => a - b),
      );
      const first = await petstore.pets.list({ status: 'available', limit: 100 });
      assert.equal(first.data.length, 100);
      assert.ok(first.nextCursor);
      const second = await petstore.pets.list({ status: 'available', limit: 100, cursor: first.nextCursor });
      assert.equal(second.data[0]!.id, seen[100]!.id);
      const last = await petstore.pets.list({ status: 'sold', limit: 100 });
      assert.deepEqual([last.data.length, last.nextCursor], [10, null]);
    });

    test('a create whose connection drops after the service acted is retried with its Idempotency-Key: one pet', async (t) => {
      const port = Number(new URL(svc.baseUrl).port);
      const proxy = await startTcpProxy({ host: '127.0.0.1', port });
      t.after(() => proxy.close());
      const attempts: { key: string | null; replayed: string | null; error?: unknown }[] = [];
      const recording: typeof fetch = async (input, init) => {
        const key = new Headers(init?.headers).get('idempotency-key');
        try {
          const response = await fetch(input, init);
          attempts.push({ key, replayed: response.headers.get('idempotent-replayed') });
          return response;
        } catch (err) {
          attempts.push({ key, replayed: null, error: err });
          throw err;
        }
      };
      const viaProxy = new Petstore({ baseUrl: `http://127.0.0.1:${proxy.port}/v1`, apiKey: API_KEY, fetch: recording });
      const name = `dropped-${engine}-${Date.now()}`;
      proxy.dropNextResponse();
      const pet = await viaProxy.pets.create({ name, categoryId: 2 });
      assert.equal(attempts.length, 2, 'the dropped attempt and one retry');
      assert.ok(attempts[0]!.error instanceof TypeError, 'the first attempt lost its connection');
      assert.equal(attempts[1]!.key, attempts[0]!.key);
      assert.equal(attempts[1]!.replayed, 'true', 'the service had created it: the retry replays that answer');
      const named: (Pet & { etag: string })[] = [];
      for await (const p of petstore.pets.iterate({ limit: 100 })) if (p.name === name) named.push(p);
      // A listed pet is the pet with its entity tag, as `pets.list({ id })` reads one without the deprecated getPet.
      assert.deepEqual(
        named.map(({ etag, ...p }) => p),
        [pet],
      );
      const [byId] = (await petstore.pets.list({ id: [pet.id] })).data;
      // Its etag is what If-Match takes (a stale one would throw precondition_failed).
      assert.equal((await petstore.pets.update(pet.id, { description: 'listed, then changed' }, { ifMatch: byId!.etag })).id, pet.id);
    });

    test('a dropped PATCH is not repeated: the caller gets a PetstoreConnectionError', async (t) => {
      const pet = await petstore.pets.create({ name: 'Patchy', categoryId: 1 });
      const order = await petstore.orders.place({ petId: pet.id });
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(svc.baseUrl).port) });
      t.after(() => proxy.close());
      const viaProxy = new Petstore({ baseUrl: `http://127.0.0.1:${proxy.port}/v1`, apiKey: API_KEY });
      proxy.dropNextResponse();
      await assert.rejects(viaProxy.orders.update(order.id, { status: 'approved' }), PetstoreConnectionError);
      assert.equal((await petstore.orders.get(order.id)).status, 'approved', 'the service did act on it');
    });

    test('optimistic concurrency: an update with the ETag from get succeeds; after a concurrent change that tag gets 412 precondition_failed', async () => {
      const pet = await petstore.pets.create({ name: 'Tagged', categoryId: 1 });
      const colleague = new Petstore({ baseUrl: svc.baseUrl, apiKey: API_KEY });
      const mine = await petstore.pets.get.withResponse(pet.id);
      const theirs = await colleague.pets.get.withResponse(pet.id);
      assert.equal(theirs.etag, mine.etag, 'the same representation, the same strong tag');
      const first = await colleague.pets.update.withResponse(pet.id, { name: 'Tagged by them' }, { ifMatch: theirs.etag });
      assert.equal(first.data.name, 'Tagged by them');
      assert.notEqual(first.etag, mine.etag, 'a change, a new tag');
      const lost = await failure(petstore.pets.update(pet.id, { name: 'Tagged by me' }, { ifMatch: mine.etag }));
      assert.deepEqual([lost.status, lost.code, lost.operation], [412, 'precondition_failed', 'updatePet']);
      assert.equal((await petstore.pets.get(pet.id)).name, 'Tagged by them', 'nothing changed');
      const retried = await petstore.pets.update(pet.id, { name: 'Tagged by me' }, { ifMatch: first.etag });
      assert.equal(retried.name, 'Tagged by me', 'with the current tag the write goes through');
    });

    test('a conditional read: the current tag answers not modified (undefined, or 304 with the tag), an old one the pet', async () => {
      const created = await petstore.pets.create.withResponse({ name: 'Cached', categoryId: 2 });
      const id = created.data.id;
      assert.equal(await petstore.pets.get(id, { ifNoneMatch: created.etag }), undefined);
      const notModified = await petstore.pets.get.withResponse(id, { ifNoneMatch: created.etag });
      assert.deepEqual([notModified.status, notModified.data, notModified.etag], [304, undefined, created.etag]);
      const changed = await petstore.pets.update.withResponse(id, { status: 'pending' }, { ifMatch: created.etag });
      assert.deepEqual(await petstore.pets.get(id, { ifNoneMatch: created.etag }), changed.data);
      const fresh = await petstore.pets.get.withResponse(id, { ifNoneMatch: created.etag });
      assert.deepEqual([fresh.status, fresh.data, fresh.etag], [200, changed.data, changed.etag]);
    });

    test('orders: conditional reads and a conditional updateOrder; deletePet with a stale tag changes nothing', async () => {
      const pet = await petstore.pets.create.withResponse({ name: 'Ordered', categoryId: 3 });
      const placed = await petstore.orders.place.withResponse({ petId: pet.data.id });
      assert.equal(await petstore.orders.get(placed.data.id, { ifNoneMatch: placed.etag }), undefined);
      const approved = await petstore.orders.update.withResponse(placed.data.id, { status: 'approved' }, { ifMatch: placed.etag });
      assert.equal(approved.data.status, 'approved');
      const stale = await failure(petstore.orders.update(placed.data.id, { status: 'cancelled' }, { ifMatch: placed.etag }));
      assert.deepEqual([stale.status, stale.code], [412, 'precondition_failed']);
      assert.deepEqual(await petstore.orders.get(placed.data.id, { ifNoneMatch: placed.etag }), approved.data);
      await petstore.orders.update(placed.data.id, { status: 'cancelled' }, { ifMatch: approved.etag });
      // The order moved the pet to pending and back: the same fields, but updatedAt moved with
      // each change, so the representation and its tag are new ones.
      const now = await petstore.pets.get.withResponse(pet.data.id);
      assert.deepEqual({ ...now.data, updatedAt: pet.data.updatedAt }, pet.data);
      assert.ok(now.data.updatedAt >= pet.data.updatedAt);
      assert.notEqual(now.etag, pet.etag);
      await petstore.pets.update(pet.data.id, { name: 'Renamed' });
      const refused = await failure(petstore.pets.delete(pet.data.id, { ifMatch: now.etag }));
      assert.deepEqual([refused.status, refused.code, refused.operation], [412, 'precondition_failed', 'deletePet']);
      assert.equal((await petstore.pets.get(pet.data.id)).name, 'Renamed', 'not withdrawn');
      assert.equal(await petstore.pets.delete(pet.data.id, { ifMatch: (await petstore.pets.get.withResponse(pet.data.id)).etag }), undefined);
      assert.equal((await failure(petstore.pets.get(pet.data.id))).code, 'not_found');
    });

    test('a dropped DELETE is not repeated (a repeat would answer 404 to a delete that worked): PetstoreConnectionError', async (t) => {
      const pet = await petstore.pets.create({ name: 'Withdrawn', categoryId: 1 });
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(svc.baseUrl).port) });
      t.after(() => proxy.close());
      const viaProxy = new Petstore({ baseUrl: `http://127.0.0.1:${proxy.port}/v1`, apiKey: API_KEY });
      proxy.dropNextResponse();
      await assert.rejects(viaProxy.pets.delete(pet.id), PetstoreConnectionError);
      assert.equal((await failure(petstore.pets.get(pet.id))).code, 'not_found', 'the service did withdraw it');
      assert.equal((await failure(petstore.pets.delete(pet.id))).status, 404, 'what a repeat would have answered');
    });

    test('a dropped conditional PATCH is not repeated (a repeat would answer 412 to a change that worked)', async (t) => {
      const created = await petstore.pets.create.withResponse({ name: 'Conditional', categoryId: 1 });
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(svc.baseUrl).port) });
      t.after(() => proxy.close());
      const viaProxy = new Petstore({ baseUrl: `http://127.0.0.1:${proxy.port}/v1`, apiKey: API_KEY });
      proxy.dropNextResponse();
      await assert.rejects(viaProxy.pets.update(created.data.id, { name: 'Changed' }, { ifMatch: created.etag }), PetstoreConnectionError);
      assert.equal((await petstore.pets.get(created.data.id)).name, 'Changed', 'the service did act on it');
      const repeat = await failure(petstore.pets.update(created.data.id, { name: 'Changed' }, { ifMatch: created.etag }));
      assert.equal(repeat.code, 'precondition_failed', 'what a repeat would have answered');
    });

    test('orders: place, approve, deliver; the pet is sold; listing by petId', async () => {
      const pet = await petstore.pets.create({ name: 'Buddy', categoryId: 1 });
      const placed = await petstore.orders.place({ petId: pet.id });
      assert.equal(placed.status, 'placed');
      assert.equal((await petstore.orders.update(placed.id, { status: 'approved' })).status, 'approved');
      assert.equal((await petstore.orders.update(placed.id, { status: 'delivered' })).status, 'delivered');
      assert.equal((await petstore.orders.get(placed.id)).status, 'delivered');
      const orders = [];
      for await (const o of petstore.orders.iterate({ petId: pet.id })) orders.push(o.id);
      assert.deepEqual(orders, [placed.id]);
      assert.equal((await failure(petstore.orders.place({ petId: pet.id }))).code, 'pet_not_available');
    });

    test('exports: pets.exportCsv streams the filtered listing as CSV text, chunk by chunk; orders.exportCsv with withResponse', async () => {
      const tag = `export-${engine}`;
      const made = [];
      for (const name of ['=Rex', 'Ann, the "cat"']) made.push(await petstore.pets.create({ name, categoryId: 1, tags: [tag] }));
      const stream = await petstore.pets.exportCsv({ tag: [tag], sort: '-id' });
      assert.ok(stream instanceof ReadableStream);
      let text = '';
      for await (const chunk of stream) text += chunk;
      const lines = text.split('\r\n');
      assert.ok(lines[0]!.startsWith('id,name,category,status,'), lines[0]);
      assert.deepEqual(
        lines.slice(1, -1).map((l) => l.split(',')[0]),
        [made[1]!.id, made[0]!.id].map(String),
      );
      assert.ok(text.includes(`${made[0]!.id},'=Rex,Dogs,available`), 'a formula-like name is defused');
      assert.ok(text.includes('"Ann, the ""cat"""'));
      const order = await petstore.orders.place({ petId: made[0]!.id });
      const answer = await petstore.orders.exportCsv.withResponse({ petId: made[0]!.id });
      assert.match(answer.headers.get('content-disposition') ?? '', /^attachment; filename="orders-\d{4}-\d{2}-\d{2}\.csv"$/);
      const orders = (await new Response(answer.data.pipeThrough(new TextEncoderStream())).text()).split('\r\n');
      assert.equal(orders.length, 3, 'the header, one order, the final CRLF');
      assert.ok(orders[1]!.startsWith(`${order.id},${made[0]!.id},`));
      assert.equal((await failure(petstore.pets.exportCsv({ breed: '--' }))).code, 'validation_failed');
    });

    test('photos: upload from a Buffer, a Blob and a file path; read back as Blobs, conditionally too; remove', async (t) => {
      const pet = await petstore.pets.create({ name: 'Photogenic', categoryId: 1 });
      const png = await solid('png', { colour: 1 });
      const fromBuffer = await petstore.pets.addPhoto(pet.id, png);
      assert.equal(fromBuffer.mediaType, 'image/png');
      const fromBlob = await petstore.pets.addPhoto(pet.id, new Blob([new Uint8Array(await solid('webp', { colour: 2 }))]));
      assert.equal(fromBlob.mediaType, 'image/webp');
      const dir = await mkdtemp(join(tmpdir(), 'petstore-photo-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const path = join(dir, 'rex.jpg');
      await writeFile(path, await solid('jpeg', { colour: 3 }));
      const fromPath = await petstore.pets.addPhoto.withResponse(pet.id, path);
      assert.equal(fromPath.status, 201);
      assert.equal(fromPath.data.mediaType, 'image/jpeg');
      assert.equal((await petstore.pets.addPhoto.withResponse(pet.id, path)).status, 200, 'the same image again: nothing new');

      assert.deepEqual((await petstore.pets.get(pet.id)).photoUrls, [fromBuffer.url, fromBlob.url, fromPath.data.url]);
      assert.deepEqual(
        (await petstore.pets.listPhotos(pet.id)).map((p) => p.id),
        [fromBuffer.id, fromBlob.id, fromPath.data.id],
      );

      const image = await petstore.photos.get(fromBuffer.hash);
      assert.ok(image instanceof Blob);
      assert.equal(image.type, 'image/png');
      assert.equal(image.size, fromBuffer.bytes);
      const thumb = await petstore.photos.getThumbnail.withResponse(fromPath.data.hash);
      assert.equal(thumb.data.type, 'image/webp');
      assert.equal(await petstore.photos.getThumbnail(fromPath.data.hash, { ifNoneMatch: thumb.etag }), undefined);

      const refused = await failure(petstore.pets.addPhoto(pet.id, new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>')));
      assert.deepEqual([refused.status, refused.code], [415, 'unsupported_media_type']);

      await petstore.pets.deletePhoto(pet.id, fromBuffer.id);
      assert.equal((await petstore.pets.listPhotos(pet.id)).length, 2);
      assert.equal((await failure(petstore.photos.get(fromBuffer.hash))).status, 404);
    });

    test('imports: a file streamed from an async iterable and from a path, validated, applied, followed to done', async (t) => {
      async function* stock() {
        yield new TextEncoder().encode('name,category,tags\r\n');
        yield new TextEncoder().encode('Streamed one,Dogs,imported\r\nStreamed two,Cats,\r\n,Cats,\r\n');
      }
      const job = await petstore.imports.create({ file: stock(), type: 'text/csv' });
      assert.deepEqual(
        [job.state, job.rows, job.valid, job.report.map((r) => [r.line, r.column, r.code])],
        ['ready', 3, 2, [[4, 'name', 'validation_failed']]],
      );
      const applying = await petstore.imports.apply.withResponse(job.id);
      assert.equal(applying.status, 202);
      let done = await petstore.imports.get(job.id);
      while (done.state !== 'done') done = await petstore.imports.get(job.id);
      assert.equal(done.created, 2);

      const dir = await mkdtemp(join(tmpdir(), 'petstore-import-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const path = join(dir, 'stock.jsonl');
      await writeFile(path, `${JSON.stringify({ name: 'From a file', categoryId: 1 })}\n`);
      const fromPath = await petstore.imports.create({ file: path, type: 'application/x-ndjson' });
      assert.deepEqual([fromPath.state, fromPath.format, fromPath.valid], ['ready', 'jsonl', 1]);
    });

    test('health log: add (a retry with the same Idempotency-Key appends once), iterate, get, void, the due list', async () => {
      const pet = await petstore.pets.create({ name: 'Patient', categoryId: 1 });
      const input = { kind: 'vaccination', date: '2025-03-01', name: 'Nobivac', givenBy: 'Dr. A. Jones', nextDue: '2025-09-01' } as const;
      const first = await petstore.health.add.withResponse(pet.id, input, { idempotencyKey: `health-${pet.id}` });
      assert.equal(first.status, 201);
      const again = await petstore.health.add(pet.id, input, { idempotencyKey: `health-${pet.id}` });
      assert.deepEqual(again, first.data);
      const exam = await petstore.health.add(pet.id, { kind: 'exam', date: '2025-04-01', name: 'Check-up', givenBy: 'Sam' });
      const log = [];
      for await (const r of petstore.health.iterate(pet.id, { limit: 1 })) log.push(r.id);
      assert.deepEqual(log, [exam.id, first.data.id]);
      assert.deepEqual(await petstore.health.get(pet.id, exam.id), exam);
      const due = await petstore.health.listDue({ before: '2025-09-02', limit: 100 });
      assert.deepEqual(
        due.data.filter((r) => r.petId === pet.id).map((r) => r.id),
        [first.data.id],
      );
      const voided = await petstore.health.void(pet.id, first.data.id, { reason: 'wrong animal' });
      assert.equal(voided.voided?.reason, 'wrong animal');
      assert.equal((await failure(petstore.health.void(pet.id, first.data.id, { reason: 'again' }))).code, 'already_voided');
      const after = await petstore.health.listDue({ before: '2025-09-02', limit: 100 });
      assert.equal(after.data.filter((r) => r.petId === pet.id).length, 0);
    });
  });
}

describe('against the service on sqlite: errors, headers, rate limits', () => {
  let svc: Service;
  let petstore: Petstore;
  before(async () => {
    svc = await serviceOn('sqlite');
    petstore = new Petstore({ baseUrl: svc.baseUrl, apiKey: API_KEY });
  });

  test('400s are PetstoreErrors with the documented code, the message and the request id', async () => {
    const cases: [() => Promise<unknown>, string][] = [
      [() => petstore.pets.create({ name: '', categoryId: 1 }), 'validation_failed'],
      [() => petstore.pets.create({ name: 'Rex', categoryId: 9999 }), 'unknown_category'],
      [() => petstore.pets.list({ limit: 1000 }), 'validation_failed'],
      [() => petstore.pets.list({ cursor: 'forged' }), 'invalid_cursor'],
      [() => petstore.orders.place({ petId: 9_007_199_254_740_991 }), 'unknown_pet'],
    ];
    for (const [call, code] of cases) {
      const err = await failure(call());
      assert.equal(err.status, 400);
      assert.equal(err.code, code);
      assert.ok(err.message.length > 0);
      assert.match(err.requestId ?? '', /\S/);
      assert.equal(err.errors.length, code === 'validation_failed' ? 1 : 0, 'the rules broken come with validation_failed only');
    }
    const tag = await failure(petstore.pets.create({ name: 'Rex', categoryId: 1, tags: ['Kids'] }));
    assert.deepEqual(tag.errors, [{ in: 'body', field: 'tags[0]', rule: 'pattern', message: 'a tag is lowercase letters, digits and hyphens, up to 32' }]);
    const notFound = await failure(petstore.orders.get(9_007_199_254_740_991));
    assert.deepEqual([notFound.status, notFound.code], [404, 'not_found']);
    const unauthorized = await failure(new Petstore({ baseUrl: svc.baseUrl, apiKey: 'not-a-key' }).categories.list());
    assert.deepEqual([unauthorized.status, unauthorized.code], [401, 'unauthorized']);
  });

  test("getPet's deprecation is warned once, with the service's sunset and successor", async (t) => {
    const warnings: Error[] = [];
    const listener = (w: Error & { code?: string }) => w.code === 'PETSTORE_DEPRECATED_OPERATION' && warnings.push(w);
    process.on('warning', listener);
    t.after(() => process.off('warning', listener));
    const client = new Petstore({ baseUrl: svc.baseUrl, apiKey: API_KEY });
    const pet = await client.pets.create({ name: 'Old', categoryId: 1 });
    assert.deepEqual(await client.pets.get(pet.id), pet);
    await client.pets.get(pet.id);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!.message,
      /^Petstore: getPet \(GET \/pets\/\{petId\}\) is deprecated since 2026-01-01T00:00:00\.000Z; it stops working on 2030-12-05T00:00:00\.000Z \(Sunset\)\. Use its successor: http:\/\/127\.0\.0\.1:\d+\/v1\/pets\./,
    );
  });

  test('rateLimit reflects the service’s RateLimit headers', async () => {
    const client = new Petstore({ baseUrl: svc.baseUrl, apiKey: API_KEY });
    await client.categories.list();
    const first = client.rateLimit;
    assert.equal(first?.policy, 'default');
    assert.equal(first?.limit, 600);
    assert.equal(first?.windowSeconds, 60);
    await client.categories.list();
    assert.ok(
      client.rateLimit!.remaining < first!.remaining || client.rateLimit!.resetSeconds > first!.resetSeconds,
      'one more request counted (or a new window)',
    );
  });

  test('a 429 with Retry-After: 1 is waited out and the call then succeeds', async () => {
    let calls = 0;
    const throttledOnce: typeof fetch = (input, init) =>
      calls++ === 0 ? Promise.resolve(error(429, 'rate_limited', { 'retry-after': '1' })) : fetch(input, init);
    const client = new Petstore({ baseUrl: svc.baseUrl, apiKey: API_KEY, fetch: throttledOnce });
    const started = performance.now();
    const categories = await client.categories.list();
    assert.ok(performance.now() - started >= 990);
    assert.equal(calls, 2);
    assert.equal(categories[0]?.name, 'Dogs');
  });

  test("the service's own 429: code rate_limited, Retry-After in seconds, rateLimit at 0", async (t) => {
    const limited = await startPetstore({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    t.after(() => limited.stop());
    const client = new Petstore({ baseUrl: limited.baseUrl, apiKey: API_KEY, maxRetries: 0 });
    await client.categories.list();
    await client.categories.list();
    const err = await failure(client.categories.list());
    assert.deepEqual([err.status, err.code], [429, 'rate_limited']);
    assert.ok(err.retryAfter !== undefined && err.retryAfter >= 1 && err.retryAfter <= 60, `Retry-After ${err.retryAfter}`);
    assert.equal(client.rateLimit?.remaining, 0);
    assert.equal(client.rateLimit?.limit, 2);
  });
});
