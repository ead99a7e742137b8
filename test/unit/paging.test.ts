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

  test('fetchPageAt: a fetch that stops short and says where gets a page with what it found and a cursor from there', async () => {
    const key = (row: { id: number }) => String(row.id);
    const short = await codec.fetchPageAt('pets;', { limit: 2 }, async () => ({ rows: [{ id: 3 }], resumeAt: '40' }), key);
    assert.deepEqual(short.items, [{ id: 3 }]);
    assert.equal(codec.decodePosition('pets;', short.next!), '40');
    const none = await codec.fetchPageAt('pets;', { limit: 2 }, async () => ({ rows: [], resumeAt: '90' }), key);
    assert.deepEqual([none.items, codec.decodePosition('pets;', none.next!)], [[], '90']);
    // A full page's cursor is its last row's, and the end of the listing has none.
    const full = await codec.fetchPageAt('pets;', { limit: 2 }, async () => ({ rows: [{ id: 3 }, { id: 5 }, { id: 8 }], resumeAt: '90' }), key);
    assert.equal(codec.decodePosition('pets;', full.next!), '5');
    assert.deepEqual(await codec.fetchPageAt('pets;', { limit: 2 }, async () => ({ rows: [{ id: 3 }] }), key), { items: [{ id: 3 }] });
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
