// The record's rules (src/pets/pet.record.ts), pure: a microchip number's forms and its one
// spelling, when a record is complete, a breed's filter terms.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { breedTerms, normaliseMicrochip, recordRule, recordState } from '../../src/pets/pet.record.ts';

const body = { in: 'body', field: 'microchip' } as const;

test('a microchip number: 15 digits, 10 hexadecimal characters or 9 digits, separators dropped and letters upper-cased', () => {
  assert.equal(normaliseMicrochip('985 112 345 678 903', body), '985112345678903');
  assert.equal(normaliseMicrochip('985-112.345*678\t903', body), '985112345678903');
  assert.equal(normaliseMicrochip('0a01-23456b', body), '0A0123456B');
  assert.equal(normaliseMicrochip('012*345*678', body), '012345678');
  for (const bad of ['98511234567890', '9851123456789031', '0A0123456', 'GA0123456B', '', '   ', '12345678A']) {
    assert.throws(
      () => normaliseMicrochip(bad, body),
      (err: { code?: string; errors?: { field: string }[] }) => err.code === 'validation_failed' && err.errors?.[0].field === 'microchip',
      bad,
    );
  }
});

test('a record is complete when it has every member the rule requires; missing ones are listed in the rule’s order', () => {
  const rule = recordRule(['sex', 'colour', 'source'], true);
  assert.deepEqual(rule, ['source', 'colour', 'sex', 'microchip']);
  assert.deepEqual(recordState({ colour: 'red' }, rule), { recordComplete: false, recordMissing: ['source', 'sex', 'microchip'] });
  assert.deepEqual(recordState({ colour: 'red', sex: 'male', source: { kind: 'born-in-store' }, microchip: '123456789' }, rule), {
    recordComplete: true,
    recordMissing: [],
  });
  assert.deepEqual(recordState({}, recordRule([], false)), { recordComplete: true, recordMissing: [] });
  // neutered: false is a value the record has.
  assert.deepEqual(recordState({ neutered: false }, recordRule(['neutered'], false)).recordComplete, true);
});

test('a breed is found by the words of either name, folded', () => {
  assert.deepEqual(breedTerms({ primary: 'Labrador Retriever', mixed: true, secondary: 'Caniche Toy' }), [
    'breed:labrador',
    'breed:retriever',
    'breed:caniche',
    'breed:toy',
  ]);
  assert.deepEqual(breedTerms({ primary: 'Épagneul Breton' }), ['breed:epagneul', 'breed:breton']);
  assert.deepEqual(breedTerms(undefined), []);
});
