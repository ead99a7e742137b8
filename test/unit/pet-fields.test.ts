// The pet's field table (PET_FIELDS) against the schemas it sits beside, and what follows from it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ListPetsQuery, NewPet, Pet, PET_FIELDS, PET_SORTS, PetPatch, UNPRICED_SORT_KEY, type Pet as PetType } from '../../src/pets/pet.schemas.ts';
import { petListing } from '../../src/pets/pet.listing.ts';
import { sortExpression } from '../../src/storage/sql/sql.pet-list.ts';
import { newPetRecord, patchPet } from '../../src/pets/pet.service.ts';
import { PET_COLUMNS, toPet, tupleToPet } from '../../src/storage/rows.ts';

test('the field table names every member of the Pet schema once, in the schema order', () => {
  assert.deepEqual(
    PET_FIELDS.map((f) => f.member),
    Object.keys(Pet.properties),
  );
});

test('every member a client may send or patch is a field the engines write; no column is named twice', () => {
  const writable = PET_FIELDS.filter((f) => f.written === 'always').map((f) => f.member);
  for (const member of [...Object.keys(NewPet.properties), ...Object.keys(PetPatch.properties)]) assert.ok(writable.includes(member as keyof PetType), member);
  const columns = PET_FIELDS.flatMap((f) => f.columns);
  assert.equal(new Set(columns).size, columns.length);
  assert.equal(PET_COLUMNS, columns.join(', '));
});

test("the sortable fields of the table are the sort enum, the engines' sort expressions and the cursor's value", () => {
  const sortable = PET_FIELDS.filter((f) => f.sortable !== undefined).map((f) => f.member);
  assert.deepEqual(sortable, ['name', 'price', 'createdAt']);
  assert.deepEqual(PET_SORTS, ['id', '-id', ...sortable.flatMap((m) => [m, `-${m}`])]);
  assert.deepEqual((ListPetsQuery.properties.sort as unknown as { enum: string[] }).enum, PET_SORTS);
  assert.deepEqual(sortable.map(sortExpression), ['name_key', `coalesce(price_amount, ${UNPRICED_SORT_KEY})`, 'created_at']);
  assert.throws(() => sortExpression('colour'), /no sort expression for colour/);
  const pet = {
    id: 4,
    name: 'Émile',
    tags: [],
    status: 'available',
    createdAt: '2026-11-22T12:00:00.000Z',
    updatedAt: '2026-11-22T12:00:00.000Z',
  } as unknown as PetType;
  assert.equal(petListing({ sort: '-name' }).position(pet), JSON.stringify(['emile', 4]));
  assert.equal(petListing({ sort: 'price' }).position(pet), JSON.stringify([UNPRICED_SORT_KEY, 4]));
  assert.equal(petListing({ sort: 'createdAt' }).position(pet), JSON.stringify(['2026-11-22T12:00:00.000Z', 4]));
  assert.equal(petListing({}).position(pet), '4');
});

const row = {
  id: 7,
  name: 'Rex',
  category_id: 2,
  status: 'available',
  description: null,
  tags: '["a","b"]',
  price_amount: 1999,
  price_currency: 'EUR',
  photos: null,
  created_at: '2026-11-22T12:00:00.000Z',
  updated_at: '2026-11-23T12:00:00.000Z',
};

test('a row reads back as the pet, optional members absent when NULL, in the schema order', () => {
  const pet = toPet(row);
  assert.deepEqual(Object.keys(pet), ['id', 'name', 'categoryId', 'status', 'tags', 'price', 'createdAt', 'updatedAt']);
  assert.deepEqual(pet.price, { amount: 1999, currency: 'EUR' });
  assert.deepEqual(tupleToPet(PET_COLUMNS.split(', ').map((c) => row[c as keyof typeof row])), pet);
  const withPhotos = toPet({ ...row, description: 'x', photos: 'h1 h2' });
  assert.equal(withPhotos.description, 'x');
  assert.deepEqual(withPhotos.photoUrls?.length, 2);
});

test('patchPet: a value given again changes nothing; null removes an optional member and empties the tags', () => {
  const current = toPet(row);
  assert.equal(patchPet(current, { name: 'Rex', price: { amount: 1999 }, tags: ['a', 'b'] }, 'EUR').changed, false);
  const { next, changed } = patchPet(current, { price: null, tags: null, description: 'Good dog' }, 'EUR');
  assert.equal(changed, true);
  assert.equal(next.price, undefined);
  assert.ok(!('price' in next));
  assert.deepEqual(next.tags, []);
  assert.equal(next.description, 'Good dog');
  assert.equal(patchPet(current, { tags: ['b', 'a'] }, 'EUR').changed, true, 'the tags keep their order');
  const bred = patchPet(current, { breed: { mixed: true, primary: 'Beagle' } }, 'EUR').next;
  assert.equal(patchPet(bred, { breed: { primary: 'Beagle', mixed: true } }, 'EUR').changed, false, "an object's keys in another order are the same object");
});

test('newPetRecord: status defaults to available, tags to none; the index covers the searched members', () => {
  const record = newPetRecord({ name: 'Émile', categoryId: 1, description: 'Labrador' }, 'EUR');
  assert.equal(record.status, 'available');
  assert.deepEqual(record.tags, []);
  assert.equal(record.searchText, 'emile labrador');
  assert.equal(record.nameKey, 'emile');
});
