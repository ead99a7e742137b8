// The client's behaviour around each call, driven through a scripted fetch: what it sends, what it
// retries and how, the errors it throws, the headers it reads.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Petstore, PetstoreConnectionError, PetstoreError } from '../src/index.ts';
import { randomUUID } from '../src/transport.ts';
import { error, fakeFetch, json, networkError } from './helpers/fake-fetch.ts';

const BASE = 'http://petstore.test/v1';
const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' } as const;
const ORDER = { id: 3, petId: 1, status: 'approved', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' } as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function client(answers: Parameters<typeof fakeFetch>[0], options: { maxRetries?: number; timeoutMs?: number } = {}) {
  const { fetch, sent } = fakeFetch(answers);
  return { petstore: new Petstore({ baseUrl: BASE, apiKey: 'pst_test', fetch, ...options }), sent };
}

/** A fetch that answers only when aborted (a service that never responds). */
function hanging(): (sent: unknown, init: RequestInit) => Promise<Response> {
  return (_, init) => new Promise((_, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)));
}

describe('requests', () => {
  test('pets.search sends q with the filters and the sort; its pages keep a repeated tag', async () => {
    const next = '</v1/pets?q=lab&tag=calm&tag=small&sort=-id&cursor=abc>; rel="next"';
    const { petstore, sent } = client([json(200, [PET], { link: next }), json(200, [])]);
    const all = await petstore.pets.iterateSearch('lab', { tag: ['calm', 'small'], sort: '-id' }).toArray({ limit: 10 });
    assert.deepEqual(all, [PET]);
    assert.equal(sent[0]!.url.href, `${BASE}/pets?tag=calm&tag=small&sort=-id&q=lab`);
    assert.equal(sent[1]!.url.href, `${BASE}/pets?q=lab&tag=calm&tag=small&sort=-id&cursor=abc`);
    const { petstore: one, sent: sentOne } = client([json(200, [PET])]);
    assert.deepEqual(await one.pets.search('émile', { status: 'available' }), { data: [PET], nextCursor: null });
    assert.equal(sentOne[0]!.url.searchParams.get('q'), 'émile');
  });

  test('bearer key, JSON body, query without undefined values, path parameters encoded', async () => {
    const { petstore, sent } = client([json(201, PET), json(200, [PET]), json(200, ORDER)]);
    assert.deepEqual(await petstore.pets.create({ name: 'Rex', categoryId: 1 }), PET);
    assert.deepEqual(await petstore.pets.list({ status: 'available', limit: undefined }), { data: [PET], nextCursor: null });
    await petstore.orders.update(3, { status: 'approved' });
    assert.equal(sent[0]!.headers.get('authorization'), 'Bearer pst_test');
    assert.equal(sent[0]!.headers.get('content-type'), 'application/json');
    assert.equal(sent[0]!.headers.get('accept'), 'application/json');
    assert.deepEqual(JSON.parse(sent[0]!.body!), { name: 'Rex', categoryId: 1 });
    assert.equal(sent[1]!.url.href, `${BASE}/pets?status=available`);
    assert.equal(sent[1]!.body, null);
    assert.equal(sent[1]!.headers.get('content-type'), null);
    assert.equal(sent[2]!.method, 'PATCH');
    assert.equal(sent[2]!.url.pathname, '/v1/store/orders/3');
  });

  test('a base URL with a trailing slash; extra headers pass, the client keeps its own Authorization', async () => {
    const { fetch, sent } = fakeFetch([json(200, PET)]);
    const petstore = new Petstore({ baseUrl: `${BASE}/`, apiKey: 'pst_test', fetch });
    await petstore.orders.get(3, { headers: { 'x-request-id': 'trace-1', authorization: 'Bearer other' } });
    assert.equal(sent[0]!.url.href, `${BASE}/store/orders/3`);
    assert.equal(sent[0]!.headers.get('x-request-id'), 'trace-1');
    assert.equal(sent[0]!.headers.get('authorization'), 'Bearer pst_test');
  });

  test('fetch is called as a plain function (a browser fetch refuses another `this`)', async () => {
    let self: unknown = 'unset';
    const fetch = function (this: unknown) {
      self = this;
      return Promise.resolve(json(200, []));
    } as unknown as typeof globalThis.fetch;
    await new Petstore({ baseUrl: BASE, apiKey: 'k', fetch }).categories.list();
    assert.equal(self, undefined);
  });

  test('bad options are refused at construction', () => {
    assert.throws(() => new Petstore({ baseUrl: '/v1', apiKey: 'k' }), TypeError);
    assert.throws(() => new Petstore({ baseUrl: 'ftp://x/v1', apiKey: 'k' }), /must be http: or https:, not ftp:/);
    assert.throws(() => new Petstore({ baseUrl: BASE, apiKey: '' }), /apiKey/);
    assert.throws(() => new Petstore({ baseUrl: BASE, apiKey: 'k', maxRetries: -1 }), /maxRetries/);
    assert.throws(() => new Petstore({ baseUrl: BASE, apiKey: 'k', timeoutMs: 0 }), /timeoutMs/);
  });

  test('a base URL that is unset, not a URL, or without /v1 is refused at construction, saying what is wrong', async () => {
    const refused = (baseUrl: unknown, why: RegExp) =>
      assert.throws(
        () => new Petstore({ baseUrl: baseUrl as string, apiKey: 'k' }),
        (e: unknown) => e instanceof TypeError && why.test(e.message) && e.message.endsWith("it is the API's base URL with /v1, e.g. http://127.0.0.1:8080/v1"),
      );
    refused(undefined, /^Petstore: baseUrl is not set;/); // e.g. an unset environment variable
    refused('', /^Petstore: baseUrl is not set;/);
    refused(8080, /^Petstore: baseUrl must be a string;/);
    refused('127.0.0.1:8080/v1', /^Petstore: baseUrl "127\.0\.0\.1:8080\/v1" is not an absolute URL;/);
    refused('api.example.com/v1', /is not an absolute URL/);
    refused('http://127.0.0.1:8080', /^Petstore: baseUrl "http:\/\/127\.0\.0\.1:8080" does not end with \/v1;/);
    refused('https://api.example.com/v2', /does not end with \/v1/);
    refused('https://api.example.com/v1?x=1', /must not have a query or fragment/);
    refused('https://user:pw@api.example.com/v1', /must not hold credentials/);
    for (const baseUrl of [`${BASE}/`, 'https://api.example.com/petstore/v1']) {
      const { fetch, sent } = fakeFetch([json(200, [])]);
      await new Petstore({ baseUrl, apiKey: 'k', fetch }).categories.list();
      assert.equal(sent[0]!.url.href, `${baseUrl.replace(/\/$/, '')}/categories`);
    }
  });

  test('a missing path parameter is refused before anything is sent', async () => {
    const { petstore, sent } = client([]);
    await assert.rejects((petstore.pets.get as (id?: number) => Promise<unknown>)(), /missing path parameter petId/);
    assert.equal(sent.length, 0);
  });
});

describe('Idempotency-Key', () => {
  test('every POST that takes one gets a random UUID, the same on each retry; GET and PATCH get none', async () => {
    const { petstore, sent } = client([
      error(503, 'service_unavailable', { 'retry-after': '0' }),
      json(201, PET),
      json(201, PET),
      json(200, []),
      json(200, ORDER),
    ]);
    await petstore.pets.create({ name: 'Rex', categoryId: 1 });
    await petstore.pets.create({ name: 'Rex', categoryId: 1 });
    await petstore.pets.list();
    await petstore.orders.update(3, { status: 'approved' });
    const keys = sent.map((s) => s.headers.get('idempotency-key'));
    assert.match(keys[0]!, UUID);
    assert.equal(keys[1], keys[0], 'the retry repeats the key');
    assert.notEqual(keys[2], keys[0], 'another call, another key');
    assert.deepEqual(keys.slice(3), [null, null]);
  });

  test("the caller's own key is sent and kept across retries", async () => {
    const { petstore, sent } = client([error(409, 'idempotency_key_in_use', { 'retry-after': '0' }), json(201, ORDER)]);
    await petstore.orders.place({ petId: 1 }, { idempotencyKey: 'order-42' });
    assert.deepEqual(
      sent.map((s) => s.headers.get('idempotency-key')),
      ['order-42', 'order-42'],
    );
  });

  test('UUIDs come from crypto.randomUUID, or from getRandomValues where it is missing (insecure browser contexts)', (t) => {
    assert.match(randomUUID(), UUID);
    // randomUUID lives on Crypto.prototype: an own property shadows it for this test.
    Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
    t.after(() => delete (globalThis.crypto as { randomUUID?: unknown }).randomUUID);
    assert.equal(globalThis.crypto.randomUUID, undefined);
    const made = new Set(Array.from({ length: 100 }, randomUUID));
    assert.equal(made.size, 100);
    for (const id of made) assert.match(id, UUID);
  });
});

describe('retries', () => {
  test('503 then 201: the create succeeds on the second attempt', async () => {
    const { petstore, sent } = client([error(503, 'service_unavailable', { 'retry-after': '0' }), json(201, PET)]);
    assert.deepEqual(await petstore.pets.create({ name: 'Rex', categoryId: 1 }), PET);
    assert.equal(sent.length, 2);
  });

  test('429 with Retry-After: 1 is waited out, then answered', async () => {
    const { petstore, sent } = client([error(429, 'rate_limited', { 'retry-after': '1' }), json(200, [PET])]);
    const started = performance.now();
    assert.deepEqual((await petstore.pets.list()).data, [PET]);
    assert.ok(performance.now() - started >= 990, `waited ${performance.now() - started} ms`);
    assert.equal(sent.length, 2);
  });

  test('a Retry-After beyond 60 s is not waited out: the error says how long', async () => {
    const { petstore, sent } = client([error(429, 'rate_limited', { 'retry-after': '120' })]);
    const err = await petstore.pets.list().catch((e: unknown) => e);
    assert.ok(err instanceof PetstoreError);
    assert.equal(err.retryAfter, 120);
    assert.equal(sent.length, 1);
  });

  test('gives up after maxRetries (default 2: three attempts) with the last error; per call and per client', async () => {
    const busy = () => error(503, 'service_unavailable', { 'retry-after': '0' });
    const { petstore, sent } = client([busy(), busy(), busy()]);
    await assert.rejects(petstore.pets.list(), (e: unknown) => e instanceof PetstoreError && e.code === 'service_unavailable');
    assert.equal(sent.length, 3);
    const once = client([busy()], { maxRetries: 0 });
    await assert.rejects(once.petstore.pets.list(), PetstoreError);
    assert.equal(once.sent.length, 1);
    const perCall = client([busy(), busy()]);
    await assert.rejects(perCall.petstore.pets.list({}, { maxRetries: 1 }), PetstoreError);
    assert.equal(perCall.sent.length, 2);
  });

  test('409 other than idempotency_key_in_use, 400 and 500 are thrown at once', async () => {
    for (const [status, code] of [
      [409, 'pet_not_available'],
      [400, 'unknown_pet'],
      [500, 'internal_error'],
    ] as const) {
      const { petstore, sent } = client([error(status, code, { 'retry-after': '0' })]);
      await assert.rejects(petstore.orders.place({ petId: 1 }), (e: unknown) => e instanceof PetstoreError && e.code === code);
      assert.equal(sent.length, 1, code);
    }
  });

  test('a network failure is retried for GET and idempotent POST (with backoff), never for other POSTs, PATCH or DELETE', async () => {
    const get = client([networkError(), json(200, [PET])]);
    assert.deepEqual((await get.petstore.pets.list()).data, [PET]);
    assert.equal(get.sent.length, 2);
    const post = client([networkError(), json(201, PET)], { maxRetries: 1 });
    await post.petstore.pets.create({ name: 'Rex', categoryId: 1 });
    assert.equal(post.sent[1]!.headers.get('idempotency-key'), post.sent[0]!.headers.get('idempotency-key'));
    // createWebhook takes no Idempotency-Key (its response holds a secret the service keeps for no replay).
    const hook = client([networkError(), json(201, {})], { maxRetries: 1 });
    const refused = await hook.petstore.webhookEndpoints.create({ url: 'https://shop.example.com/hooks' }).catch((e: unknown) => e);
    assert.ok(refused instanceof PetstoreConnectionError, 'not repeated');
    assert.equal(hook.sent.length, 1);
    assert.equal(hook.sent[0]!.headers.get('idempotency-key'), null);
    const patch = client([networkError()]);
    const err = await patch.petstore.orders.update(3, { status: 'approved' }).catch((e: unknown) => e);
    assert.ok(err instanceof PetstoreConnectionError && !(err instanceof PetstoreError));
    assert.equal(err.timedOut, false);
    assert.equal(err.operation, 'updateOrder');
    assert.match(err.message, /updateOrder \(PATCH \/v1\/store\/orders\/3\): the request failed: fetch failed/);
    assert.ok(err.cause instanceof TypeError);
    assert.equal(patch.sent.length, 1);
    const conditional = client([networkError()]);
    await assert.rejects(conditional.petstore.pets.update(1, { name: 'Rex' }, { ifMatch: '"t"' }), PetstoreConnectionError);
    assert.equal(conditional.sent.length, 1, 'If-Match does not make a PATCH repeatable');
    const del = client([networkError()]);
    await assert.rejects(del.petstore.pets.delete(1), PetstoreConnectionError);
    assert.equal(del.sent.length, 1);
  });

  test('PATCH and DELETE are retried after 429 and 503 (the service did not act), If-Match sent again', async () => {
    const { petstore, sent } = client([
      error(503, 'service_unavailable', { 'retry-after': '0' }),
      new Response(null, { status: 204 }),
      error(429, 'rate_limited', { 'retry-after': '0' }),
      json(200, PET),
    ]);
    await petstore.pets.delete(1, { ifMatch: '"t"' });
    await petstore.pets.update(1, { name: 'Rex' }, { ifMatch: '"t"' });
    assert.deepEqual(
      sent.map((s) => [s.method, s.headers.get('if-match')]),
      [
        ['DELETE', '"t"'],
        ['DELETE', '"t"'],
        ['PATCH', '"t"'],
        ['PATCH', '"t"'],
      ],
    );
  });

  test('a timeout is a PetstoreConnectionError (timedOut), retried like a network failure', async () => {
    const { petstore, sent } = client([hanging(), hanging()], { timeoutMs: 50, maxRetries: 1 });
    const err = await petstore.pets.list().catch((e: unknown) => e);
    assert.ok(err instanceof PetstoreConnectionError);
    assert.equal(err.timedOut, true);
    assert.match(err.message, /no response within 50 ms/);
    assert.equal(sent.length, 2);
  });

  test("the caller's AbortSignal stops the call, during a request or a wait, with its own reason", async () => {
    const during = client([hanging()]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(during.petstore.pets.list({}, { signal: controller.signal }), { name: 'AbortError' });
    const waiting = client([error(429, 'rate_limited', { 'retry-after': '30' })]);
    const started = performance.now();
    await assert.rejects(waiting.petstore.pets.list({}, { signal: AbortSignal.timeout(50) }), { name: 'TimeoutError' });
    assert.ok(performance.now() - started < 5_000);
    assert.equal(waiting.sent.length, 1);
    await assert.rejects(waiting.petstore.pets.list({}, { signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(waiting.sent.length, 1, 'an aborted signal sends nothing');
  });
});

describe('errors', () => {
  test('PetstoreError carries status, code, message, requestId, retryAfter and the operation; instanceof works', async () => {
    const { petstore } = client([
      json(400, { code: 'unknown_category', message: 'body/categoryId 42 is not a known category', status: 400 }, { 'x-request-id': 'abc-123' }),
    ]);
    const err = await petstore.pets.create({ name: 'Rex', categoryId: 42 }).catch((e: unknown) => e);
    assert.ok(err instanceof PetstoreError && err instanceof Error);
    assert.equal(err.name, 'PetstoreError');
    assert.equal(err.status, 400);
    assert.equal(err.code, 'unknown_category');
    assert.equal(err.message, 'body/categoryId 42 is not a known category');
    assert.equal(err.requestId, 'abc-123');
    assert.equal(err.retryAfter, undefined);
    assert.equal(err.operation, 'createPet');
  });

  test("an answer that is not the service's Error body → unexpected_response, the body kept", async () => {
    const html = new Response('<html>Bad Gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } });
    const newer = json(418, { code: 'teapot', message: 'a code this client predates', status: 418 });
    const { petstore } = client([html, newer]);
    const bad = await petstore.pets.list().catch((e: unknown) => e);
    assert.ok(bad instanceof PetstoreError);
    assert.deepEqual([bad.status, bad.code, bad.body], [502, 'unexpected_response', '<html>Bad Gateway</html>']);
    const unknown = await petstore.pets.list().catch((e: unknown) => e);
    assert.ok(unknown instanceof PetstoreError);
    assert.equal(unknown.code, 'unexpected_response');
    assert.deepEqual(unknown.body, { code: 'teapot', message: 'a code this client predates', status: 418 });
  });

  test('a documented code at a status the document lists for no operation is an unexpected_response (status is typed by the list)', async () => {
    const { petstore } = client([error(405, 'method_not_allowed'), error(404, 'not_found')]);
    const unlisted = await petstore.pets.list().catch((e: unknown) => e);
    assert.ok(unlisted instanceof PetstoreError);
    assert.deepEqual([unlisted.status, unlisted.code], [405, 'unexpected_response']);
    assert.match(unlisted.message, /^HTTP 405: not an Error answer the OpenAPI document describes/);
    assert.deepEqual(unlisted.body, { code: 'method_not_allowed', message: 'method_not_allowed happened', status: 405 });
    const listed = await petstore.pets.list().catch((e: unknown) => e);
    assert.ok(listed instanceof PetstoreError);
    assert.deepEqual([listed.status, listed.code], [404, 'not_found']);
  });

  test('a 2xx whose body is not JSON is an unexpected_response too', async () => {
    const { petstore } = client([new Response('{"id":', { status: 200 })]);
    await assert.rejects(petstore.pets.get(1), (e: unknown) => e instanceof PetstoreError && e.code === 'unexpected_response' && e.status === 200);
  });
});

describe('conditional requests and withResponse', () => {
  const TAG = '"kP3v0bLQ7m2mX1Y9Zr4aQw"';

  test('ifMatch and ifNoneMatch are sent as If-Match and If-None-Match', async () => {
    const { petstore, sent } = client([json(200, PET, { etag: TAG }), new Response(null, { status: 204 }), json(200, ORDER, { etag: TAG })]);
    await petstore.pets.update(1, { name: 'Rex' }, { ifMatch: TAG });
    await petstore.pets.delete(1, { ifMatch: '*' });
    await petstore.orders.get(3, { ifNoneMatch: TAG });
    assert.deepEqual(
      sent.map((s) => [s.headers.get('if-match'), s.headers.get('if-none-match')]),
      [
        [TAG, null],
        ['*', null],
        [null, TAG],
      ],
    );
  });

  test('an option for a header the operation does not document is refused before anything is sent', async () => {
    const { petstore, sent } = client([]);
    // What TypeScript refuses at compile time (test/types/usage.ts), a JavaScript caller gets at run time.
    const untyped = petstore as unknown as Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>;
    await assert.rejects(
      untyped.categories!.get!(1, { ifNoneMatch: TAG }),
      /getCategory takes no ifNoneMatch \(its OpenAPI entry documents no if-none-match header\)/,
    );
    await assert.rejects(untyped.pets!.get!(1, { ifMatch: TAG }), /getPet takes no ifMatch/);
    await assert.rejects(untyped.pets!.update!(1, { name: 'Rex' }, { idempotencyKey: 'k' }), /updatePet takes no idempotencyKey/);
    await assert.rejects(
      untyped.webhookEndpoints!.create!({ url: 'https://shop.example.com/hooks' }, { idempotencyKey: 'k' }),
      /createWebhook takes no idempotencyKey/,
    );
    await assert.rejects(untyped.pets!.update!(1, { name: 'Rex' }, { ifMatch: 42 }), /ifMatch must be a string/);
    assert.equal(sent.length, 0);
  });

  test('ifMatch: undefined is refused (a tag lost by mistake must not make the write unconditional); ifNoneMatch: undefined is a plain read', async () => {
    const { petstore, sent } = client([json(200, PET, { etag: TAG })]);
    await assert.rejects(petstore.pets.update(1, { name: 'Rex' }, { ifMatch: undefined }), /ifMatch is undefined/);
    await assert.rejects(petstore.orders.update(3, { status: 'approved' }, { ifMatch: undefined }), TypeError);
    assert.equal(sent.length, 0);
    assert.deepEqual(await petstore.pets.get(1, { ifNoneMatch: undefined }), PET);
    assert.equal(sent[0]!.headers.get('if-none-match'), null);
  });

  test('304 to a call with ifNoneMatch: undefined, or withResponse status 304 with the ETag and no data', async () => {
    const notModified = () => new Response(null, { status: 304, headers: { etag: TAG, 'x-request-id': 'r-304' } });
    const { petstore, sent } = client([notModified(), notModified(), json(200, PET, { etag: '"other"' })]);
    assert.equal(await petstore.pets.get(1, { ifNoneMatch: TAG }), undefined);
    const answer = await petstore.orders.get.withResponse(3, { ifNoneMatch: TAG });
    assert.deepEqual([answer.status, answer.data, answer.etag, answer.headers.get('x-request-id')], [304, undefined, TAG, 'r-304']);
    const changed = await petstore.pets.get.withResponse(1, { ifNoneMatch: TAG });
    assert.deepEqual([changed.status, changed.data, changed.etag], [200, PET, '"other"']);
    assert.equal(sent.length, 3);
  });

  test('304 to a call without ifNoneMatch is an unexpected_response, not retried', async () => {
    const { petstore, sent } = client([new Response(null, { status: 304 })]);
    const err = await petstore.pets.get(1, { headers: { 'if-none-match': TAG } }).catch((e: unknown) => e);
    assert.ok(err instanceof PetstoreError);
    assert.deepEqual([err.status, err.code], [304, 'unexpected_response']);
    assert.equal(sent.length, 1);
  });

  test('412 is a PetstoreError precondition_failed, thrown at once', async () => {
    const { petstore, sent } = client([error(412, 'precondition_failed')]);
    const err = await petstore.pets.update(1, { name: 'Rex' }, { ifMatch: TAG }).catch((e: unknown) => e);
    assert.ok(err instanceof PetstoreError);
    assert.deepEqual([err.status, err.code, err.operation], [412, 'precondition_failed', 'updatePet']);
    assert.equal(sent.length, 1);
  });

  test('withResponse: status, data, headers; etag where the document promises one; a page under data', async () => {
    const { petstore } = client([
      json(201, PET, { etag: TAG, location: '/v1/pets/1' }),
      json(200, [{ id: 1, name: 'Dogs' }]),
      json(200, [PET], { link: '</v1/pets?cursor=c1>; rel="next"' }),
      new Response(null, { status: 204 }),
    ]);
    const created = await petstore.pets.create.withResponse({ name: 'Rex', categoryId: 1 });
    assert.deepEqual([created.status, created.data, created.etag, created.headers.get('location')], [201, PET, TAG, '/v1/pets/1']);
    const categories = await petstore.categories.list.withResponse();
    assert.deepEqual(categories.data, [{ id: 1, name: 'Dogs' }]);
    assert.ok(!('etag' in categories), 'listCategories documents no ETag');
    const page = await petstore.pets.list.withResponse();
    assert.deepEqual([page.status, page.data, page.headers.get('link')], [200, { data: [PET], nextCursor: 'c1' }, '</v1/pets?cursor=c1>; rel="next"']);
    const deleted = await petstore.pets.delete.withResponse(1);
    assert.deepEqual([deleted.status, deleted.data, 'etag' in deleted], [204, undefined, false]);
  });

  test('a documented ETag missing: withResponse throws unexpected_response; the plain call does not need it', async () => {
    const { petstore } = client([json(200, PET), json(200, PET, { 'x-request-id': 'r-1' })]);
    assert.deepEqual(await petstore.pets.get(1), PET);
    const err = await petstore.pets.get.withResponse(1).catch((e: unknown) => e);
    assert.ok(err instanceof PetstoreError);
    assert.deepEqual([err.status, err.code, err.requestId, err.operation, err.body], [200, 'unexpected_response', 'r-1', 'getPet', PET]);
    assert.match(err.message, /without the ETag its OpenAPI entry promises/);
  });
});

describe('paging', () => {
  test('list() returns one page and the next cursor; iterate() follows rel="next" with its filters to the end', async () => {
    const page = (ids: number[], next?: string) =>
      json(
        200,
        ids.map((id) => ({ ...PET, id })),
        next ? { link: `<${next}>; rel="next"` } : {},
      );
    const { petstore, sent } = client([
      page([1, 2], '/v1/pets?limit=2&status=available&cursor=c1'),
      page([1, 2], '/v1/pets?limit=2&status=available&cursor=c1'),
      page([3, 4], 'http://elsewhere.example/v1/pets?limit=2&status=available&cursor=c2'),
      page([5]),
    ]);
    assert.deepEqual(await petstore.pets.list({ status: 'available', limit: 2 }), { data: [1, 2].map((id) => ({ ...PET, id })), nextCursor: 'c1' });
    const seen: number[] = [];
    for await (const pet of petstore.pets.iterate({ status: 'available', limit: 2 })) seen.push(pet.id);
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
    assert.deepEqual(
      sent.slice(1).map((s) => s.url.href),
      [
        `${BASE}/pets?status=available&limit=2`,
        `${BASE}/pets?limit=2&status=available&cursor=c1`,
        `${BASE}/pets?limit=2&status=available&cursor=c2`, // on the client's own origin: the key goes nowhere else
      ],
    );
  });

  test('iterate().toArray({ limit }): the first limit items across pages, fetching only the pages they need', async () => {
    const pets = (ids: number[]) => ids.map((id) => ({ ...PET, id }));
    const pages = (): Response[] => [
      json(200, pets([1, 2]), { link: '</v1/pets?cursor=c1>; rel="next"' }),
      json(200, pets([3, 4]), { link: '</v1/pets?cursor=c2>; rel="next"' }),
      json(200, pets([5])),
    ];
    const three = client(pages());
    assert.deepEqual(await three.petstore.pets.iterate().toArray({ limit: 3 }), pets([1, 2, 3]));
    assert.equal(three.sent.length, 2, 'the third page is not fetched');
    const exact = client(pages());
    assert.deepEqual(await exact.petstore.pets.iterate().toArray({ limit: 2 }), pets([1, 2]));
    assert.equal(exact.sent.length, 1, 'a limit that ends a page fetches no further');
    const all = client(pages());
    assert.deepEqual(await all.petstore.pets.iterate({ status: 'available' }).toArray({ limit: 10_000 }), pets([1, 2, 3, 4, 5]));
    assert.equal(all.sent.length, 3);
    const { petstore, sent } = client([]);
    for (const limit of [0, 1.5, -1, undefined]) {
      await assert.rejects(petstore.pets.iterate().toArray({ limit } as { limit: number }), /toArray\(\{ limit \}\) must be an integer ≥ 1/);
    }
    await assert.rejects((petstore.pets.iterate().toArray as () => Promise<unknown>)(), TypeError);
    assert.equal(sent.length, 0, 'a bad limit sends nothing');
  });

  test('breaking out of iterate() stops fetching', async () => {
    const { petstore, sent } = client([json(200, [PET, { ...PET, id: 2 }], { link: '</v1/store/orders?cursor=x>; rel="next"' })]);
    for await (const order of petstore.orders.iterate()) if (order.id === 1) break;
    assert.equal(sent.length, 1);
  });
});

describe('headers the client reads', () => {
  test('rateLimit holds the last RateLimit values', async () => {
    const limited = { ratelimit: '"default";r=599;t=60', 'ratelimit-policy': '"default";q=600;w=60' };
    const { petstore } = client([json(200, [], limited), json(200, [])]);
    const rateLimit = () => petstore.rateLimit; // read afresh each time (no narrowing across calls)
    assert.equal(rateLimit(), undefined);
    await petstore.categories.list();
    assert.deepEqual(rateLimit(), { policy: 'default', remaining: 599, resetSeconds: 60, limit: 600, windowSeconds: 60 });
    await petstore.categories.list();
    assert.equal(rateLimit()?.remaining, 599, 'a response without the header keeps the last values');
  });

  const DEPRECATED = {
    deprecation: '@1767225600',
    sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
    link: '</v1/pets>; rel="successor-version", </docs>; rel="deprecation"; type="text/html"',
  };

  test('a Deprecation header warns once per operation (process.emitWarning), naming it, its sunset and successor', async (t) => {
    const warnings: Error[] = [];
    const listener = (w: Error & { code?: string }) => w.code === 'PETSTORE_DEPRECATED_OPERATION' && warnings.push(w);
    process.on('warning', listener);
    t.after(() => process.off('warning', listener));
    const { petstore } = client([json(200, PET, DEPRECATED), error(404, 'not_found', DEPRECATED), json(200, [])]);
    await petstore.pets.get(1);
    await assert.rejects(petstore.pets.get(2), PetstoreError);
    await petstore.pets.list();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.name, 'DeprecationWarning');
    assert.equal(
      warnings[0]!.message,
      'Petstore: getPet (GET /pets/{petId}) is deprecated since 2026-01-01T00:00:00.000Z; it stops working on 2030-12-05T00:00:00.000Z (Sunset). Use its successor: http://petstore.test/v1/pets. See http://petstore.test/docs.',
    );
  });

  test('without process.emitWarning (a browser) the warning goes to console.warn', async (t) => {
    t.mock.property(process, 'emitWarning', undefined as never);
    const warn = t.mock.method(console, 'warn', () => {});
    const { petstore } = client([json(200, PET, DEPRECATED), json(200, PET, DEPRECATED)]);
    await petstore.pets.get(1);
    await petstore.pets.get(1);
    assert.equal(warn.mock.callCount(), 1);
    assert.match(String(warn.mock.calls[0]!.arguments[0]), /^Petstore: getPet .* 2030-12-05/);
  });
});
