// The response headers of the hottest requests, read off a real listening server (the path
// production traffic takes, sockets included) rather than inject(): which headers are present,
// with which values, for successes, refusals and errors. On every engine.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { buildTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';
import { NO_RECORD } from '../helpers/pets.ts';

interface Raw {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** One request on a fresh connection; header names lower-cased, Date and connection framing left out. */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        const all: Record<string, string> = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i].toLowerCase();
          assert.equal(all[name], undefined, `${method} ${path}: header ${name} sent twice`);
          if (!['date', 'connection', 'keep-alive'].includes(name)) all[name] = res.rawHeaders[i + 1];
        }
        resolve({ status: res.statusCode!, headers: all, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const JSON_TYPE = 'application/json; charset=utf-8';
const RATE_LIMIT = /^"default";r=\d+;t=\d+$/;
const DEPRECATION = {
  deprecation: '@1767225600',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version", </docs>; rel="deprecation"; type="text/html"',
};

const names = (r: Raw) => Object.keys(r.headers).sort();

for (const engine of ENGINES) {
  describe(engine, () => {
    test('listPets, getPet and their refusals carry exactly the documented headers', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine });
      for (let i = 0; i < 25; i++) await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: `pet ${i}`, categoryId: 1 } });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as { port: number }).port;

      const first = await send(port, 'GET', '/v1/pets', auth);
      assert.equal(first.status, 200);
      assert.deepEqual(names(first), [
        'cache-control',
        'content-length',
        'content-type',
        'link',
        'ratelimit',
        'ratelimit-policy',
        'x-content-type-options',
        'x-request-id',
      ]);
      assert.equal(first.headers['content-type'], JSON_TYPE);
      assert.equal(first.headers['cache-control'], 'no-store');
      assert.equal(first.headers['x-content-type-options'], 'nosniff');
      assert.match(first.headers['x-request-id'], UUID);
      assert.equal(first.headers['ratelimit-policy'], '"default";q=600;w=60');
      assert.match(first.headers.ratelimit, RATE_LIMIT);
      assert.equal(Number(first.headers['content-length']), Buffer.byteLength(first.body));
      const next = /^<(\/v1\/pets\?limit=20&cursor=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)>; rel="next"$/.exec(first.headers.link);
      assert.ok(next, first.headers.link);
      assert.equal(JSON.parse(first.body).length, 20);

      // The last page: no Link.
      const last = await send(port, 'GET', next[1], auth);
      assert.equal(last.status, 200);
      assert.deepEqual(names(last), [
        'cache-control',
        'content-length',
        'content-type',
        'ratelimit',
        'ratelimit-policy',
        'x-content-type-options',
        'x-request-id',
      ]);
      assert.equal(JSON.parse(last.body).length, 5);

      // Filters are kept in the next link.
      const filtered = await send(port, 'GET', '/v1/pets?status=available&limit=3', auth);
      assert.match(filtered.headers.link, /^<\/v1\/pets\?limit=3&status=available&cursor=[^>]+>; rel="next"$/);

      const get = await send(port, 'GET', '/v1/pets/3', { ...auth, 'x-request-id': 'client-chosen-id' });
      assert.equal(get.status, 200);
      assert.deepEqual(names(get), [
        'cache-control',
        'content-length',
        'content-type',
        'deprecation',
        'etag',
        'link',
        'ratelimit',
        'ratelimit-policy',
        'sunset',
        'x-content-type-options',
        'x-request-id',
      ]);
      assert.equal(get.headers['x-request-id'], 'client-chosen-id');
      assert.deepEqual({ deprecation: get.headers.deprecation, sunset: get.headers.sunset, link: get.headers.link }, DEPRECATION);
      const { createdAt, updatedAt, ...rest } = JSON.parse(get.body);
      assert.deepEqual(rest, { id: 3, name: 'pet 2', categoryId: 1, status: 'available', tags: [], ...NO_RECORD });
      assert.equal(createdAt, updatedAt);

      const missing = await send(port, 'GET', '/v1/pets/999', auth);
      assert.equal(missing.status, 404);
      assert.deepEqual(
        names(missing),
        names(get).filter((h) => h !== 'etag'),
      );
      assert.deepEqual(JSON.parse(missing.body), { code: 'not_found', message: 'pet 999 does not exist', status: 404 });

      const noKey = await send(port, 'GET', '/v1/pets');
      assert.equal(noKey.status, 401);
      assert.deepEqual(names(noKey), ['cache-control', 'content-length', 'content-type', 'www-authenticate', 'x-content-type-options', 'x-request-id']);
      assert.equal(noKey.headers['www-authenticate'], 'Bearer realm="petstore"');
      assert.deepEqual(JSON.parse(noKey.body), {
        code: 'unauthorized',
        message: 'missing Authorization header; send Authorization: Bearer <API key>',
        status: 401,
      });

      const noKeyGet = await send(port, 'GET', '/v1/pets/3');
      assert.equal(noKeyGet.status, 401);
      assert.deepEqual(names(noKeyGet), [
        'cache-control',
        'content-length',
        'content-type',
        'deprecation',
        'link',
        'sunset',
        'www-authenticate',
        'x-content-type-options',
        'x-request-id',
      ]);

      const badKey = await send(port, 'GET', '/v1/pets', { authorization: `Bearer pst_${'x'.repeat(43)}` });
      assert.equal(badKey.status, 401);
      assert.equal(badKey.headers['www-authenticate'], 'Bearer realm="petstore", error="invalid_token"');

      const badLimit = await send(port, 'GET', '/v1/pets?limit=101', auth);
      assert.equal(badLimit.status, 400);
      assert.deepEqual(names(badLimit), [
        'cache-control',
        'content-length',
        'content-type',
        'ratelimit',
        'ratelimit-policy',
        'x-content-type-options',
        'x-request-id',
      ]);
      assert.equal(JSON.parse(badLimit.body).code, 'validation_failed');

      const badCursor = await send(port, 'GET', '/v1/pets?cursor=abc.def', auth);
      assert.equal(badCursor.status, 400);
      assert.equal(JSON.parse(badCursor.body).code, 'invalid_cursor');

      const notAllowed = await send(port, 'DELETE', '/v1/categories', auth);
      assert.equal(notAllowed.status, 405);
      assert.equal(notAllowed.headers.allow, 'GET, HEAD, POST');
    });
  });
}
