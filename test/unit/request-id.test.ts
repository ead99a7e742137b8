import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import { freshUuid, requestId } from '../../src/http/request-id.ts';

// RFC 9562: version 4 in the 13th hex digit, variant 10xx in the 17th.
const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const withHeader = (value: string | string[] | undefined) => ({ headers: value === undefined ? {} : { 'x-request-id': value } }) as unknown as IncomingMessage;

describe('freshUuid', () => {
  test('makes version-4 UUIDs, all different, across many batches', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const id = freshUuid();
      assert.match(id, V4);
      seen.add(id);
    }
    assert.equal(seen.size, 5000);
  });

  test('is random: every hex digit but the version and variant digits takes all 16 values', () => {
    const ids = Array.from({ length: 2000 }, () => freshUuid().replaceAll('-', ''));
    for (let pos = 0; pos < 32; pos++) {
      const values = new Set(ids.map((id) => id[pos]));
      if (pos === 12) assert.deepEqual([...values], ['4']);
      else if (pos === 16) assert.deepEqual([...values].sort(), ['8', '9', 'a', 'b']);
      else assert.equal(values.size, 16, `position ${pos}`);
    }
  });
});

describe('requestId', () => {
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
