import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referencedSchemas } from '../../src/http/policies/serialization.ts';

const shared = {
  Error: { $id: 'Error', type: 'object', properties: { code: { type: 'string' } } },
  Pet: { $id: 'Pet', type: 'object', properties: { status: { $ref: 'PetStatus#' }, price: { $ref: 'Price#/properties/amount' } } },
  PetStatus: { $id: 'PetStatus', type: 'string', enum: ['available'] },
  Price: { $id: 'Price', type: 'object', properties: { amount: { type: 'integer' } } },
  Pets: { $id: 'Pets', type: 'array', items: { $ref: 'Pet#' } },
};

test('a response schema is compiled with the shared schemas it references, through one another', () => {
  const used = referencedSchemas(JSON.stringify({ ...shared.Pets, description: 'A page' }), 'Pets', shared);
  assert.deepEqual(Object.keys(used ?? {}), ['Pet', 'PetStatus', 'Price']);
  assert.equal(used?.Pet, shared.Pet, 'the schema objects Fastify gave, not copies');
});

test('a schema that references nothing needs no shared schema; a `$ref` written inside a string is no reference', () => {
  assert.deepEqual(referencedSchemas(JSON.stringify({ type: 'string', description: 'see {"$ref":"Pet#"}' }), undefined, shared), {});
});

test('a reference into the schema itself, or to its own $id, needs no shared schema', () => {
  const schema = { $id: 'Tree', type: 'object', properties: { up: { $ref: '#' }, down: { $ref: 'Tree#' } } };
  assert.deepEqual(referencedSchemas(JSON.stringify(schema), 'Tree', shared), {});
});

test('a reference to no shared schema leaves the decision to the compiler: undefined, not a partial set', () => {
  assert.equal(referencedSchemas(JSON.stringify({ items: [{ $ref: 'Pet#' }, { $ref: 'Unknown#' }] }), undefined, shared), undefined);
});
