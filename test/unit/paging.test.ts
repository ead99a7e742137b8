import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { CursorCodec, nextLink } from '../../src/paging.ts';

const invalid = (err: unknown) => err instanceof AppError && err.code === 'invalid_cursor' && err.status === 400;

describe('CursorCodec', () => {
  const codec = new CursorCodec('secret-one');

  test('round-trips the last id for the same scope', () => {
    for (const id of [1, 20, 9007199254740991]) assert.equal(codec.decode('pets;sold', codec.encode('pets;sold', id)), id);
  });

  test('is opaque: url-safe and does not show the id in clear', () => {
    const c = codec.encode('pets;', 12345);
    assert.match(c, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.ok(!c.includes('12345'));
  });

  test('a cursor already verified is still refused for another scope', () => {
    const c = codec.encode('pets;sold', 78);
    assert.equal(codec.decode('pets;sold', c), 78);
    assert.equal(codec.decode('pets;sold', c), 78);
    assert.throws(() => codec.decode('pets;', c), invalid);
    assert.throws(() => new CursorCodec('secret-two').decode('pets;sold', c), invalid);
  });

  test('refuses another scope, another secret, and any changed character', () => {
    const c = codec.encode('pets;sold', 77);
    assert.throws(() => codec.decode('pets;', c), invalid);
    assert.throws(() => new CursorCodec('secret-two').decode('pets;sold', c), invalid);
    for (let i = 0; i < c.length; i++) {
      if (c[i] === '.') continue;
      const changed = c.slice(0, i) + (c[i] === 'a' ? 'b' : 'a') + c.slice(i + 1);
      assert.throws(() => codec.decode('pets;sold', changed), invalid, `position ${i}`);
    }
    for (const junk of ['', '.', 'abc', 'abc.', '.abc', 'a.b.c']) assert.throws(() => codec.decode('pets;sold', junk), invalid, junk);
  });
});

describe('nextLink', () => {
  test('keeps every defined parameter and encodes values', () => {
    assert.equal(nextLink('/v1', '/pets', { limit: 5, status: undefined, cursor: 'a_b-c.d' }), '</v1/pets?limit=5&cursor=a_b-c.d>; rel="next"');
    assert.equal(nextLink('https://x/v1', '/store/orders', { status: 'placed', petId: 3 }), '<https://x/v1/store/orders?status=placed&petId=3>; rel="next"');
  });

  test('writes exactly what URLSearchParams writes, whatever the values', () => {
    const values = ['plain', 'a b', 'a+b', 'x&y=z', '~tilde', '*.-_', 'é', '😀', '%41', '<>"', '', 'a\nb'];
    for (const v of values) {
      const params = { 'we ird': v, limit: 20, cursor: v };
      const query = new URLSearchParams([
        ['we ird', v],
        ['limit', '20'],
        ['cursor', v],
      ]);
      assert.equal(nextLink('/v1', '/pets', params), `</v1/pets?${query}>; rel="next"`, JSON.stringify(v));
    }
  });
});
