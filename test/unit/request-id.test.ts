import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import { requestId } from '../../src/http/edge/request-id.ts';

// RFC 9562: version 4 in the 13th hex digit, variant 10xx in the 17th.
const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const withHeader = (value: string | string[] | undefined) => ({ headers: value === undefined ? {} : { 'x-request-id': value } }) as unknown as IncomingMessage;

describe('requestId', () => {
  test('makes a fresh version-4 UUID per request without one, never the same twice', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => requestId(withHeader(undefined))));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.match(id, V4);
  });

  test('keeps a sane incoming id', () => {
    assert.equal(requestId(withHeader('abc-123.DEF_4:5')), 'abc-123.DEF_4:5');
    assert.equal(requestId(withHeader('x'.repeat(128))), 'x'.repeat(128));
  });

  test('replaces a missing, repeated, over-long or unsafe id with a fresh UUID', () => {
    for (const bad of [undefined, '', 'x'.repeat(129), 'a b', 'a"b', 'a\u00e9', ['a', 'b']]) {
      assert.match(requestId(withHeader(bad)), V4, JSON.stringify(bad));
    }
  });
});
