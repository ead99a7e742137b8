import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { generate, OPENAPI_JSON, OUTPUTS, routesOf } from '../scripts/generate.ts';

test('src/schema.ts and src/routes.ts are what openapi.json generates (else: npm run sdk:generate)', async () => {
  const fresh = await generate();
  for (const file of ['schema', 'routes'] as const) {
    const committed = await readFile(OUTPUTS[file], 'utf8');
    assert.ok(committed === fresh[file], `${OUTPUTS[file].pathname} is stale: run npm run sdk:generate (npm run openapi does it too)`);
  }
});

test('a changed document changes the generated files (the check above can fail)', async () => {
  const doc = JSON.parse(await readFile(OPENAPI_JSON, 'utf8'));
  doc.components.schemas.Pet.properties.nickname = { type: 'string' };
  doc.paths['/pets'].get.parameters.push({ in: 'query', name: 'sort', schema: { type: 'string' } });
  delete doc.paths['/pets'].post;
  const changed = await generate(doc);
  const committed = { schema: await readFile(OUTPUTS.schema, 'utf8'), routes: await readFile(OUTPUTS.routes, 'utf8') };
  assert.match(changed.schema, /nickname\?: string/);
  assert.notEqual(changed.schema, committed.schema);
  assert.notEqual(changed.routes, committed.routes);
  assert.ok(!changed.routes.includes('createPet'));
});

test('routes: method, path, where the input goes, paging, request headers and ETag come from the document', async () => {
  const doc = JSON.parse(await readFile(OPENAPI_JSON, 'utf8'));
  const routes = routesOf(doc);
  assert.deepEqual(routes.listPets, { method: 'GET', path: '/pets', input: 'query', paged: true, headers: [], etag: false, binary: false, stream: false });
  assert.deepEqual(routes.createPet, {
    method: 'POST',
    path: '/pets',
    input: 'body',
    paged: false,
    headers: ['idempotency-key'],
    etag: true,
    binary: false,
    stream: false,
  });
  assert.deepEqual(routes.getPet, {
    method: 'GET',
    path: '/pets/{petId}',
    input: null,
    paged: false,
    headers: ['if-none-match'],
    etag: true,
    binary: false,
    stream: false,
  });
  assert.deepEqual(routes.deletePet, {
    method: 'DELETE',
    path: '/pets/{petId}',
    input: null,
    paged: false,
    headers: ['if-match'],
    etag: false,
    binary: false,
    stream: false,
  });
  assert.deepEqual(routes.listCategories, {
    method: 'GET',
    path: '/categories',
    input: null,
    paged: false,
    headers: [],
    etag: false,
    binary: false,
    stream: false,
  });
  assert.deepEqual(routes.updateOrder, {
    method: 'PATCH',
    path: '/store/orders/{orderId}',
    input: 'body',
    paged: false,
    headers: ['if-match'],
    etag: true,
    binary: false,
    stream: false,
  });
  assert.deepEqual(routes.createWebhook, {
    method: 'POST',
    path: '/webhooks',
    input: 'body',
    paged: false,
    headers: [],
    etag: false,
    binary: false,
    stream: false,
  });
  // A photo goes up as bytes and comes back as bytes.
  assert.deepEqual(routes.addPetPhoto, {
    method: 'POST',
    path: '/pets/{petId}/photos',
    input: 'binary',
    paged: false,
    headers: [],
    etag: false,
    binary: false,
    stream: false,
  });
  // A CSV export comes back as a stream of text.
  assert.deepEqual(routes.exportPets, {
    method: 'GET',
    path: '/pets.csv',
    input: 'query',
    paged: false,
    headers: [],
    etag: false,
    binary: false,
    stream: true,
  });
  assert.deepEqual(routes.getPhoto, {
    method: 'GET',
    path: '/photos/{hash}',
    input: null,
    paged: false,
    headers: ['if-none-match'],
    etag: true,
    binary: true,
    stream: false,
  });
  // A header is named in lower case whatever the document's spelling; an ETag only where every success documents one.
  const changed = structuredClone(doc);
  changed.paths['/categories/{categoryId}'].get.parameters.push({ in: 'header', name: 'If-None-Match', schema: { type: 'string' } });
  changed.paths['/categories/{categoryId}'].get.responses['200'].headers.ETag = { $ref: '#/components/headers/ETag' };
  delete changed.paths['/pets/{petId}'].get.responses['304'].headers.ETag;
  assert.deepEqual(
    [routesOf(changed).getCategory!.headers, routesOf(changed).getCategory!.etag, routesOf(changed).getPet!.etag],
    [['if-none-match'], true, false],
  );
  const both = structuredClone(doc);
  both.paths['/pets'].post.parameters.push({ in: 'query', name: 'dryRun', schema: { type: 'boolean' } });
  assert.throws(() => routesOf(both), /createPet takes both a body and query parameters/);
});
