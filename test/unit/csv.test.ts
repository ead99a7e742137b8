// The CSV the service writes (src/csv.ts) and the pets' columns (src/pets/pet.csv.ts): quoting,
// the formula defence and its exact undoing, and export → import as a round trip.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvField, csvLine, csvText } from '../../src/csv.ts';
import { decodePetRow, newPetOf, PET_CSV_COLUMNS, PET_CSV_HEADERS, petCsvHeader, petCsvRecord, petPatchOf } from '../../src/pets/pet.csv.ts';
import { NewPet, type Pet } from '../../src/pets/pet.schemas.ts';
import { parse } from 'csv-parse/sync';

test('a CSV field is quoted when it must be, its quotes doubled, a formula-like start defused', () => {
  assert.equal(csvField('plain'), 'plain');
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('two\r\nlines'), '"two\r\nlines"');
  assert.equal(csvField('=1+1'), "'=1+1");
  assert.equal(csvField('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvField(-3), '-3', 'a number is a number');
  assert.equal(csvField(undefined), '');
  assert.equal(csvLine(['a', 1, undefined, 'b,c']), 'a,1,,"b,c"\r\n');
});

test('every cell a spreadsheet would read as a formula starts with a quote mark, and reads back as it was', () => {
  const formulas = ['=HYPERLINK("http://x","y")', '+1', '-2+3', '@SUM(A1:A2)', '\t=1', '\r=1', "'=already quoted", "''+twice"];
  for (const text of formulas) {
    const [[cell]]: string[][] = parse(`${csvField(text)}\r\n`);
    assert.ok(cell.startsWith("'"), `${JSON.stringify(text)} is defused: ${JSON.stringify(cell)}`);
    assert.equal(csvText(cell), text, `${JSON.stringify(text)} reads back`);
  }
  for (const text of ['Rex', "O'Malley", "'quoted", 'a=b', '1-2', '']) {
    assert.equal((parse(`${csvField(text)},x\r\n`) as string[][])[0][0], text, `${JSON.stringify(text)} is written as it is`);
    assert.equal(csvText(text), text);
  }
});

test('the pet columns: id, then the members a client sends in the field table order, objects by property, the category by name', () => {
  assert.deepEqual(PET_CSV_HEADERS, [
    'id',
    'name',
    'category',
    'status',
    'description',
    'tags',
    'price.amount',
    'price.currency',
    'breed.primary',
    'breed.mixed',
    'breed.secondary',
    'sex',
    'neutered',
    'colour',
    'birthDate',
    'birthDateEstimated',
    'microchip',
    'acquiredAt',
    'source.kind',
    'source.name',
    'source.address',
    'source.licence',
  ]);
  const members = new Set(PET_CSV_COLUMNS.map((c) => c.member));
  for (const member of Object.keys(NewPet.properties)) assert.ok(members.has(member), `${member} has a column`);
});

const full: Pet = {
  id: 7,
  name: '=cmd|"/c calc"!A1',
  categoryId: 2,
  status: 'available',
  description: 'Friendly, "gentle"\r\nand house-trained',
  tags: ['friendly', 'house-trained'],
  price: { amount: 1999, currency: 'EUR' },
  breed: { primary: 'Labrador Retriever', mixed: true, secondary: 'Poodle' },
  sex: 'male',
  neutered: false,
  colour: '@black',
  birthDate: '2026-08-01',
  birthDateEstimated: true,
  microchip: '985112345678903',
  acquiredAt: '2026-09-01',
  source: { kind: 'breeder', name: 'Green Acres, Kennels', address: '12 Farm Road', licence: '-MD-BR-2041' },
  recordComplete: true,
  recordMissing: [],
  createdAt: '2026-11-22T12:00:00.000Z',
  updatedAt: '2026-11-22T12:00:00.000Z',
};
const objects = (text: string): Record<string, string>[] => parse(text, { columns: true });
const names = (id: number) => (id === 2 ? 'Dogs' : undefined);

test('a pet exported and read back gives the NewPet and the PetPatch of the same animal', () => {
  const text = petCsvHeader() + petCsvRecord(full, names);
  const [cells] = objects(text);
  assert.equal(cells.name, '\'=cmd|"/c calc"!A1', 'the formula is defused in the file');
  assert.equal(cells['source.licence'], "'-MD-BR-2041");
  assert.equal(cells.tags, 'friendly house-trained');
  const row = decodePetRow(cells);
  assert.equal(row.id, 7);
  assert.equal(row.category, 'Dogs');
  const { id, categoryId, recordComplete, recordMissing, createdAt, updatedAt, ...sent } = full;
  assert.deepEqual(newPetOf(row, 2), { ...sent, categoryId: 2, name: full.name });
  assert.deepEqual(Object.keys(newPetOf(row, 2)), Object.keys(NewPet.properties), "NewPet's member order");
  assert.deepEqual(petPatchOf(row, 2), newPetOf(row, 2));
});

test('a pet lacking optional members exports empty cells, which a NewPet leaves out and a PetPatch removes', () => {
  const bare: Pet = {
    id: 8,
    name: 'Tom',
    categoryId: 3,
    status: 'sold',
    tags: [],
    recordComplete: false,
    recordMissing: ['sex'],
    createdAt: full.createdAt,
    updatedAt: full.updatedAt,
  };
  const [cells] = objects(petCsvHeader() + petCsvRecord(bare, names));
  assert.equal(cells.category, '', 'a category without a name is empty');
  const row = decodePetRow(cells);
  assert.deepEqual(newPetOf(row, 3), { name: 'Tom', categoryId: 3, status: 'sold' });
  const patch = petPatchOf(row, 3);
  assert.equal(patch.name, 'Tom');
  assert.equal(patch.breed, null);
  assert.equal(patch.tags, null);
  assert.equal(patch.price, null);
});

test("text a column cannot read is left as it is, for the API's schema to refuse; a file's column order does not matter", () => {
  const row = decodePetRow({ 'breed.mixed': 'yes', 'breed.primary': 'Beagle', 'price.amount': '19.99', neutered: 'false', id: 'seven', tags: ' a  b ' });
  assert.equal(row.id, 'seven');
  assert.deepEqual(row.members.breed, { primary: 'Beagle', mixed: 'yes' });
  assert.deepEqual(Object.keys(row.members.breed as object), ['primary', 'mixed']);
  assert.deepEqual(row.members.price, { amount: '19.99' });
  assert.equal(row.members.neutered, false);
  assert.deepEqual(row.members.tags, ['a', 'b']);
  assert.deepEqual(decodePetRow({ unknown: 'x', name: 'Rex' }).members, { name: 'Rex' });
});
