// The request rules of issue 26 items 7, 8 and 10 (docs/api.md, "Requests"): one Content-Type,
// an empty body of an operation without one is none, no content coding, no prototype members,
// no invisible names, and what a JSON integer is.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { jsonStructureProblem, MAX_JSON_DEPTH } from '../../src/http/edge/json-body.ts';
import { TEXT_PATTERN } from '../../src/schemas.ts';
import { buildTestApp } from '../helpers/app.ts';
import { exchange, listening } from '../helpers/raw-http.ts';

type Auth = { authorization: string };
const JSON_TYPE = 'application/json';

async function createdPet(app: FastifyInstance, auth: Auth): Promise<{ id: number; etag: string }> {
  const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1 } });
  assert.equal(res.statusCode, 201, res.body);
  return { id: res.json().id, etag: String(res.headers.etag) };
}

describe('Content-Type: at most one header field (like Authorization)', () => {
  const refusal = { code: 'bad_request', message: 'a request must have at most one Content-Type header field; this one has several', status: 400 };

  test('two fields are refused with 400 bad_request, whichever comes first; nothing changes', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const pet = await createdPet(app, auth);
    for (const both of [
      [JSON_TYPE, 'application/merge-patch+json'],
      ['application/merge-patch+json', JSON_TYPE],
      [JSON_TYPE, JSON_TYPE],
    ]) {
      const res = await app.inject({
        method: 'PATCH',
        url: `/v1/pets/${pet.id}`,
        headers: { ...auth, 'content-type': both } as never,
        payload: '{"name":"Max"}',
      });
      assert.equal(res.statusCode, 400, both.join(' + '));
      assert.deepEqual(res.json(), refusal, both.join(' + '));
    }
    const created = await app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { ...auth, 'content-type': [JSON_TYPE, JSON_TYPE] } as never,
      payload: '{"name":"Max","categoryId":1}',
    });
    assert.deepEqual(created.json(), refusal);
    // Also on a request without a body: the rule is about the message, as for Authorization.
    const read = await app.inject({ method: 'GET', url: '/v1/pets', headers: { ...auth, 'content-type': [JSON_TYPE, JSON_TYPE] } as never });
    assert.deepEqual(read.json(), refusal);
    const list = await app.inject({ method: 'GET', url: '/v1/pets', headers: auth });
    assert.deepEqual(
      list.json().map((p: { name: string }) => p.name),
      ['Rex'],
      'nothing was changed or created',
    );
    const one = await app.inject({
      method: 'PATCH',
      url: `/v1/pets/${pet.id}`,
      headers: { ...auth, 'content-type': 'application/merge-patch+json' },
      payload: '{"name":"Max"}',
    });
    assert.equal(one.statusCode, 200, 'one field is fine');
  });

  test('over a real connection, after authentication', async (t) => {
    const { port, auth } = await listening(t);
    const body = '{"name":"Max","categoryId":1}';
    const head = (authorization: string) =>
      `POST /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\nContent-type: application/merge-patch+json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    const { data } = await exchange(port, head(auth.authorization));
    assert.match(data, /^HTTP\/1\.1 400 /);
    assert.ok(data.endsWith(JSON.stringify(refusal)), data);
    const anonymous = await exchange(port, head('Bearer pst_unknown'));
    assert.match(anonymous.data, /^HTTP\/1\.1 401 /, 'without a valid key nothing else is told');
  });
});

describe('operations without a body: an empty body is no body', () => {
  test('rotate-secret, retry and the DELETEs with Content-Type: application/json and an empty body are served as without one', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const headers = { ...auth, 'content-type': JSON_TYPE };
    // No such endpoint, delivery, pet or key: 404 shows the request got past its body to the operation.
    for (const [method, url] of [
      ['POST', '/v1/webhooks/999/rotate-secret'],
      ['POST', '/v1/webhooks/999/deliveries/1/retry'],
      ['DELETE', '/v1/webhooks/999'],
      ['DELETE', '/v1/pets/999'],
      ['DELETE', '/v1/categories/999'],
      ['DELETE', '/v1/keys/999'],
    ] as const) {
      for (const payload of ['', undefined]) {
        const res = await app.inject({ method, url, headers, payload });
        assert.equal(res.statusCode, 404, `${method} ${url} ${JSON.stringify(payload)}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
      // A body sent anyway must still be JSON.
      const garbage = await app.inject({ method, url, headers, payload: 'x' });
      assert.equal(garbage.json().code, 'invalid_json', `${method} ${url} with a body that is not JSON`);
    }
  });

  test('an operation that takes a body still refuses an empty one', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: { ...auth, 'content-type': JSON_TYPE }, payload: '' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'invalid_json');
  });
});

describe('Content-Encoding: request bodies are taken without a content coding only (RFC 9110 §8.4.1)', () => {
  test('gzip, deflate, br or an unknown coding → 415 with Accept-Encoding: identity; nothing is created', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const json = '{"name":"Rex","categoryId":1}';
    for (const [coding, payload] of [
      ['gzip', gzipSync(json)],
      ['GZIP', gzipSync(json)],
      ['deflate', json],
      ['br', json],
      ['x-unknown', json],
      ['identity, gzip', gzipSync(json)],
    ] as const) {
      const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: { ...auth, 'content-type': JSON_TYPE, 'content-encoding': coding }, payload });
      assert.equal(res.statusCode, 415, `${coding}: ${res.body}`);
      assert.equal(res.json().code, 'unsupported_media_type', coding);
      assert.match(res.json().message, /Content-Encoding/, coding);
      assert.equal(res.headers['accept-encoding'], 'identity', coding);
    }
    const merge = await app.inject({
      method: 'PATCH',
      url: '/v1/pets/1',
      headers: { ...auth, 'content-type': 'application/merge-patch+json', 'content-encoding': 'gzip' },
      payload: gzipSync('{"name":"Max"}'),
    });
    assert.equal(merge.statusCode, 415);
    assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: auth })).json().length, 0, 'nothing was created');
  });

  test('identity (or an empty value) is no coding; an operation without a body ignores the header of an empty one', async (t) => {
    const { app, auth } = await buildTestApp(t);
    for (const coding of ['identity', 'Identity', '']) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/pets',
        headers: { ...auth, 'content-type': JSON_TYPE, 'content-encoding': coding },
        payload: '{"name":"Rex","categoryId":1}',
      });
      assert.equal(res.statusCode, 201, `${JSON.stringify(coding)}: ${res.body}`);
    }
    const rotate = await app.inject({
      method: 'POST',
      url: '/v1/webhooks/999/rotate-secret',
      headers: { ...auth, 'content-type': JSON_TYPE, 'content-encoding': 'gzip' },
      payload: '',
    });
    assert.equal(rotate.statusCode, 404);
  });
});

describe('prototype members: refused by name, saying why', () => {
  test('__proto__ and constructor.prototype, at any depth and however escaped → 400 invalid_json naming the member', async (t) => {
    const { app, auth } = await buildTestApp(t);
    for (const [body, member] of [
      ['{"name":"Rex","categoryId":1,"__proto__":{"x":1}}', '__proto__'],
      ['{"__proto__":null,"name":"Rex","categoryId":1}', '__proto__'],
      ['{"name":"Rex","categoryId":1,"\\u005f_proto__":{}}', '__proto__'],
      ['{"name":"Rex","categoryId":1,"x":[{"__proto__":{}}]}', '__proto__'],
      ['{"name":"Rex","categoryId":1,"constructor":{"prototype":{"isAdmin":true}}}', 'prototype'],
      ['{"name":"Rex","categoryId":1,"a":{"constructor":{"x":1,"prototype":{}}}}', 'prototype'],
    ] as const) {
      const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: { ...auth, 'content-type': JSON_TYPE }, payload: body });
      assert.equal(res.statusCode, 400, body);
      const error = res.json();
      assert.equal(error.code, 'invalid_json', body);
      assert.match(error.message, new RegExp(`member named "${member}"`), body);
      assert.match(error.message, /prototype poisoning/, body);
      assert.doesNotMatch(error.message, /not valid JSON/, body);
    }
  });

  test('a constructor or prototype member elsewhere, or those words as values, are ordinary JSON', () => {
    for (const text of [
      '{"constructor":1,"prototype":2}',
      '{"constructor":[{"prototype":1}]}',
      '{"prototype":{"constructor":{}}}',
      '{"a":"__proto__","b":["constructor","prototype"]}',
      '{"constructor":{"a":{"prototype":1}}}',
    ]) {
      assert.equal(jsonStructureProblem(text, MAX_JSON_DEPTH), undefined, text);
    }
  });
});

describe('escaped UTF-16 surrogates (issue 34, item 6)', () => {
  test('a lone surrogate escape in a value or a name → 400 invalid_json; a pair is a character', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const post = (body: string) => app.inject({ method: 'POST', url: '/v1/pets', headers: { ...auth, 'content-type': JSON_TYPE }, payload: body });
    for (const body of [
      '{"name":"Rex\\ud800","categoryId":1}',
      '{"name":"\\udc00Rex","categoryId":1}',
      '{"name":"Rex\\ud800\\u0041","categoryId":1}',
      '{"name":"Rex\\uD83D","categoryId":1}',
      '{"name":"Rex","categoryId":1,"\\ud800":1}',
      '{"name":"Rex\\\\\\ud800","categoryId":1}',
    ]) {
      const res = await post(body);
      assert.equal(res.statusCode, 400, body);
      assert.equal(res.json().code, 'invalid_json', body);
      assert.match(res.json().message, /half of a UTF-16 surrogate pair/, body);
    }
    const pair = await post('{"name":"Rex \\ud83d\\udc36","categoryId":1}');
    assert.equal(pair.statusCode, 201, pair.body);
    assert.equal(pair.json().name, 'Rex 🐶');
    assert.equal(jsonStructureProblem('{"a":"\\\\ud800"}', MAX_JSON_DEPTH), undefined, 'an escaped backslash before "ud800" is text');
  });
});

describe('text fields: blank means only white space or invisible (default-ignorable) characters', () => {
  const INVISIBLE = ['\u200b\u200e', '\u200b', '\u200c\u200d', '\u2060', '\ufeff', '\u00ad', '\u034f', '\u180e', '\ufe0f', ' \u200b\t\u3000'];

  test('TEXT_PATTERN, the one rule every text field uses, refuses them and keeps visible text', () => {
    const text = new RegExp(TEXT_PATTERN, 'u');
    for (const s of INVISIBLE) assert.equal(text.test(s), false, JSON.stringify(s));
    for (const s of ['Rex', 'a\u200b', '\u200bRex\u200e', '🐕', 'מקס\u200f', 'Zoë', '\u2800']) assert.equal(text.test(s), true, JSON.stringify(s));
  });

  test('a pet name, a category name and a key name made only of them → 400 validation_failed; visible text with them is stored as sent', async (t) => {
    const { app, auth } = await buildTestApp(t);
    const pet = await createdPet(app, auth);
    for (const name of INVISIBLE) {
      const refused = [
        await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name, categoryId: 1 } }),
        await app.inject({ method: 'PATCH', url: `/v1/pets/${pet.id}`, headers: auth, payload: { name } }),
        await app.inject({ method: 'POST', url: '/v1/categories', headers: auth, payload: { name } }),
        await app.inject({ method: 'POST', url: '/v1/keys', headers: auth, payload: { name, scopes: ['pets:read'] } }),
      ];
      for (const res of refused) {
        assert.equal(res.statusCode, 400, `${JSON.stringify(name)}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.match(res.json().message, /"name" must not be blank/);
      }
    }
    const visible = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: '\u200bRex\u200e', categoryId: 1 } });
    assert.equal(visible.statusCode, 201);
    assert.equal(visible.json().name, '\u200bRex\u200e');
  });
});

describe('JSON integers: a number with an integer value is that integer (decided; docs/api.md)', () => {
  /** createPet with `categoryId` written as `spelling`, byte for byte. */
  const createWith = (app: FastifyInstance, auth: Auth, spelling: string) =>
    app.inject({ method: 'POST', url: '/v1/pets', headers: { ...auth, 'content-type': JSON_TYPE }, payload: `{"name":"Rex","categoryId":${spelling}}` });

  test('1.0, 1e0, 10e-1 and 1.0000000000000001 are read as 1', async (t) => {
    const { app, auth } = await buildTestApp(t);
    for (const spelling of ['1.0', '1e0', '1E+0', '10e-1', '1.0000000000000001']) {
      const res = await createWith(app, auth, spelling);
      assert.equal(res.statusCode, 201, `${spelling}: ${res.body}`);
      assert.equal(res.json().categoryId, 1, spelling);
      assert.match(res.body, /"categoryId":1[,}]/, `${spelling}: answered as written by the service`);
    }
  });

  test('a fraction, a string, a number beyond 2^53 − 1 or one that overflows is refused', async (t) => {
    const { app, auth } = await buildTestApp(t);
    for (const spelling of ['1.5', '0.9999999', '"1"', '9007199254740993', '1e400', '-1', '0']) {
      const res = await createWith(app, auth, spelling);
      assert.equal(res.statusCode, 400, `${spelling}: ${res.body}`);
      assert.equal(res.json().code, 'validation_failed', spelling);
      assert.match(res.json().message, /"categoryId"/, spelling);
    }
  });
});

describe('getPet: the refusals of a message that is not yet a request carry no deprecation headers, as documented', () => {
  test('431 and a malformed message answer without them; a routed refusal has them', async (t) => {
    const { port, auth } = await listening(t);
    const big = await exchange(port, `GET /v1/pets/1 HTTP/1.1\r\nHost: a\r\nAuthorization: ${auth.authorization}\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`);
    assert.match(big.data, /^HTTP\/1\.1 431 /);
    assert.doesNotMatch(big.data, /\r\n(Deprecation|Sunset):/i);
    const routed = await exchange(port, `GET /v1/pets/%zz HTTP/1.1\r\nHost: a\r\nAuthorization: ${auth.authorization}\r\nConnection: close\r\n\r\n`);
    assert.match(routed.data, /^HTTP\/1\.1 400 [\s\S]*\r\ndeprecation: @1767225600\r\n/i);
  });

  test('the OpenAPI document says so instead of promising them on every response', async (t) => {
    const { app } = await buildTestApp(t);
    const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const description: string = doc.paths['/pets/{petId}'].get.description;
    assert.doesNotMatch(description, /Every response carries/);
    assert.match(description, /except the refusals of a message that could not be read as a request[^.]*408 and 431/);
  });
});
