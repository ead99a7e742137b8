// The SQLite engine builds listing pages as JSON in the database (PetRepository.listJson). These
// tests pin that the fast path answers byte for byte what the schema serializer answers from
// row objects: same body, same headers, same cursors, for every kind of page and every escape.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { PetRepository, Storage } from '../../src/storage/storage.ts';
import { buildTestApp } from '../helpers/app.ts';

/** The same storage with the JSON fast path hidden, so listings go through list() and the serializer. */
function withoutListJson(storage: Storage): Storage {
  const pets: PetRepository = { create: (i) => storage.pets.create(i), get: (id) => storage.pets.get(id), list: (q) => storage.pets.list(q) };
  return { ...storage, pets };
}

const TRICKY_NAMES = [
  'Rex',
  'quote " backslash \\ slash /',
  Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join(''), // every control character
  'tab\there, new\nline, DEL \x7f',
  'é ñ ü — “curly” 中文 😀',
  'line\u2028para\u2029sep',
  'lone surrogate \ud800 end',
  '<script>&amp;</script>',
  ' leading and trailing ',
];

test('listings from the database-built JSON equal the serializer output: bodies, headers and cursors', async (t) => {
  const storage = openSqlite({ path: ':memory:' });
  t.after(() => storage.close());
  const fast = await buildTestApp(t, { storage });
  const plain = await buildTestApp(t, { storage: withoutListJson(storage) });
  assert.equal(typeof storage.pets.listJson, 'function', 'the SQLite engine has the fast path');

  for (const [i, name] of TRICKY_NAMES.entries()) {
    const res = await fast.app.inject({ method: 'POST', url: '/v1/pets', headers: fast.auth, payload: { name, categoryId: 1 + (i % 6), status: (['available', 'pending', 'sold'] as const)[i % 3] } });
    assert.equal(res.statusCode, 201, res.body);
  }

  const urls = [
    '/v1/pets',
    '/v1/pets?limit=100',
    '/v1/pets?limit=9', // exactly all: no next page
    '/v1/pets?limit=8', // one short: a next page with one pet
    '/v1/pets?limit=2&status=available',
    '/v1/pets?limit=1&status=sold',
    '/v1/pets?status=pending',
  ];
  const compared = new Set<string>();
  while (urls.length > 0) {
    const url = urls.shift()!;
    if (compared.has(url)) continue;
    compared.add(url);
    const a = await fast.app.inject({ url, headers: fast.auth });
    const b = await plain.app.inject({ url, headers: plain.auth });
    assert.equal(a.statusCode, 200, a.body);
    assert.equal(a.statusCode, b.statusCode, url);
    assert.equal(a.body, b.body, `body of ${url}`);
    for (const h of ['content-type', 'content-length', 'link']) assert.equal(a.headers[h], b.headers[h], `${h} of ${url}`);
    const next = /^<([^>]+)>; rel="next"$/.exec(String(a.headers.link ?? ''))?.[1];
    if (next) urls.push(next); // follow every page to the end, empty-filter pages included
  }
  assert.ok(compared.size >= 10, `followed the pages (${compared.size} URLs)`);
});

test('a page past the last pet is an empty array with no Link, as from the serializer', async (t) => {
  const storage = openSqlite({ path: ':memory:' });
  t.after(() => storage.close());
  const fast = await buildTestApp(t, { storage });
  const plain = await buildTestApp(t, { storage: withoutListJson(storage) });
  const a = await fast.app.inject({ url: '/v1/pets', headers: fast.auth });
  const b = await plain.app.inject({ url: '/v1/pets', headers: plain.auth });
  assert.equal(a.body, '[]');
  assert.equal(a.body, b.body);
  assert.equal(a.headers['content-type'], b.headers['content-type']);
  assert.equal(a.headers.link, undefined);
});
