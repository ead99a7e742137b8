import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { SHARED_SCHEMAS } from '../../src/app.ts';
import { cachedSerializerFactory, referencedSchemas } from '../../src/http/policies/serialization.ts';
import { Pet, Pets } from '../../src/pets/pet.schemas.ts';

const shared = Object.fromEntries(SHARED_SCHEMAS.map((s) => [(s as { $id?: string }).$id, s]));
const route = (schema: object) => ({ schema, method: 'GET', url: '/v1/pets', httpStatus: '200' }) as never;
const pet = (id: number, name: string) => ({
  id,
  name,
  categoryId: 1,
  status: 'available',
  tags: ['calm'],
  price: { amount: 1250, currency: 'EUR' },
  recordComplete: false,
  recordMissing: ['source'],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  etag: `"tag-of-${id}"`,
  notInTheSchema: true,
});

test('a list is written byte for byte as fast-json-stringify writes it, frozen items or not', () => {
  const plain = SerializerSelector()(shared, {})(route(Pets));
  const ours = cachedSerializerFactory(shared, {})(route(Pets));
  const page = [pet(1, 'Rex "the" dog\u2028'), Object.freeze(pet(2, 'Tom')), pet(3, 'Ünal')];
  assert.equal(ours(page), plain(page));
  assert.equal(ours(page), plain(page)); // the second time from memory
  assert.equal(ours([]), '[]');
});

test("remembers a frozen object's JSON and writes a mutable one anew", () => {
  const serialize = cachedSerializerFactory(shared, {})(route(Pet));
  const mutable = pet(1, 'Rex');
  assert.match(serialize(mutable), /"name":"Rex"/);
  mutable.name = 'Max';
  assert.match(serialize(mutable), /"name":"Max"/);
  let reads = 0;
  const frozen = Object.freeze({
    ...pet(2, 'Tom'),
    get name() {
      reads++;
      return 'Tom';
    },
  });
  const first = serialize(frozen);
  assert.equal(serialize(frozen), first);
  assert.equal(reads, 1, 'serialized once');
  assert.equal(first, SerializerSelector()(shared, {})(route(Pet))(frozen));
});

test('remembers a list of frozen items by the items it holds, in their order', () => {
  const plain = SerializerSelector()(shared, {})(route(Pets));
  const serialize = cachedSerializerFactory(shared, {})(route(Pets));
  let reads = 0;
  const counted = (id: number) =>
    Object.freeze({
      ...pet(id, 'Tom'),
      get name() {
        reads++;
        return `Tom ${id}`;
      },
    });
  const [a, b, c] = [counted(1), counted(2), counted(3)];
  const first = serialize([a, b]);
  assert.equal(first, plain([a, b]));
  assert.equal(serialize([a, b]), first, 'a new array of the same items');
  assert.equal(reads, 2 + 2, 'each item serialized once, besides the plain serializer');
  assert.equal(serialize([a, c]), plain([a, c]), 'other items');
  assert.equal(serialize([a, b, c]), plain([a, b, c]), 'more items');
  assert.equal(serialize([b, a]), plain([b, a]), 'another order');
  assert.equal(serialize([a, { ...pet(4, 'Max') }]), plain([a, { ...pet(4, 'Max') }]), 'a mutable item');
});

const schemas = {
  Error: { $id: 'Error', type: 'object', properties: { code: { type: 'string' } } },
  Pet: { $id: 'Pet', type: 'object', properties: { status: { $ref: 'PetStatus#' }, price: { $ref: 'Price#/properties/amount' } } },
  PetStatus: { $id: 'PetStatus', type: 'string', enum: ['available'] },
  Price: { $id: 'Price', type: 'object', properties: { amount: { type: 'integer' } } },
  Pets: { $id: 'Pets', type: 'array', items: { $ref: 'Pet#' } },
};

test('a response schema is compiled with the shared schemas it references, through one another', () => {
  const used = referencedSchemas(JSON.stringify({ ...schemas.Pets, description: 'A page' }), 'Pets', schemas);
  assert.deepEqual(Object.keys(used ?? {}), ['Pet', 'PetStatus', 'Price']);
  assert.equal(used?.Pet, schemas.Pet, 'the schema objects Fastify gave, not copies');
});

test('a schema that references nothing needs no shared schema; a `$ref` written inside a string is no reference', () => {
  assert.deepEqual(referencedSchemas(JSON.stringify({ type: 'string', description: 'see {"$ref":"Pet#"}' }), undefined, schemas), {});
});

test('a reference into the schema itself, or to its own $id, needs no shared schema', () => {
  const schema = { $id: 'Tree', type: 'object', properties: { up: { $ref: '#' }, down: { $ref: 'Tree#' } } };
  assert.deepEqual(referencedSchemas(JSON.stringify(schema), 'Tree', schemas), {});
});

test('a reference to no shared schema leaves the decision to the compiler: undefined, not a partial set', () => {
  assert.equal(referencedSchemas(JSON.stringify({ items: [{ $ref: 'Pet#' }, { $ref: 'Unknown#' }] }), undefined, schemas), undefined);
});
