import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { canonicalJson } from '../../src/json.ts';
import { entityTag, ifMatchPasses, ifNoneMatchPasses, parseCondition } from '../../src/preconditions.ts';

describe('entity tags', () => {
  test('are strong, quoted, equal for equal data whatever the key order, different for different data', () => {
    const a = entityTag({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
    assert.match(a, /^"[A-Za-z0-9_-]{22}"$/);
    assert.equal(entityTag({ status: 'available', categoryId: 1, name: 'Rex', id: 1 }), a);
    assert.notEqual(entityTag({ id: 1, name: 'Rex', categoryId: 1, status: 'sold' }), a);
    assert.notEqual(entityTag({ id: 2, name: 'Rex', categoryId: 1, status: 'available' }), a);
  });

  test('a mutable object is tagged as it is now; a frozen one is remembered', () => {
    const pet = { id: 1, name: 'Rex' };
    const before = entityTag(pet);
    pet.name = 'Max';
    assert.notEqual(entityTag(pet), before);
    const frozen = Object.freeze({ id: 1, name: 'Rex' });
    assert.equal(entityTag(frozen), before);
    assert.equal(entityTag(frozen), before);
  });
});

describe('If-Match / If-None-Match', () => {
  test('parse *, single and listed tags, weak ones, commas inside tags, white space and empty elements', () => {
    assert.equal(parseCondition(undefined, 'If-Match'), undefined);
    assert.equal(parseCondition(' * ', 'If-Match'), '*');
    assert.deepEqual(parseCondition('"a"', 'If-Match'), [{ opaque: 'a', weak: false }]);
    assert.deepEqual(parseCondition(' W/"a,b" ,, "" ,\t"x\u00e9" ', 'If-None-Match'), [
      { opaque: 'a,b', weak: true },
      { opaque: '', weak: false },
      { opaque: 'x\u00e9', weak: false },
    ]);
    assert.deepEqual(parseCondition(',', 'If-Match'), []);
  });

  test('refuse anything else with 400 validation_failed naming the field', () => {
    for (const bad of ['a', '"a" "b"', 'W/a', 'w/"a"', '"a', '"a"b', '*, "a"', '"a\\"b"', '"a b"']) {
      assert.throws(
        () => parseCondition(bad, 'If-Match'),
        (err: unknown) => err instanceof AppError && err.code === 'validation_failed' && /header "If-Match"/.test(err.message),
        bad,
      );
    }
  });

  test('check a long hostile value in linear time (no backtracking blow-up)', () => {
    const hostile = [`,${' '.repeat(60_000)}x`, `${'"a" ,'.repeat(12_000)} "b`, `${'W/"" '.repeat(12_000)}`];
    const started = performance.now();
    for (const value of hostile) assert.throws(() => parseCondition(value, 'If-None-Match'), AppError);
    assert.ok(performance.now() - started < 500, `${performance.now() - started} ms`);
  });

  test('If-Match compares strongly: a weak tag never matches; * always does', () => {
    const tag = '"abc"';
    assert.equal(ifMatchPasses(parseCondition('"abc"', 'If-Match')!, tag), true);
    assert.equal(ifMatchPasses(parseCondition('"x", "abc"', 'If-Match')!, tag), true);
    assert.equal(ifMatchPasses(parseCondition('W/"abc"', 'If-Match')!, tag), false);
    assert.equal(ifMatchPasses(parseCondition('"abd"', 'If-Match')!, tag), false);
    assert.equal(ifMatchPasses(parseCondition(',', 'If-Match')!, tag), false);
    assert.equal(ifMatchPasses('*', tag), true);
  });

  test('If-None-Match compares weakly: W/"abc" matches "abc" and the condition fails', () => {
    const tag = '"abc"';
    assert.equal(ifNoneMatchPasses(parseCondition('W/"abc"', 'If-None-Match')!, tag), false);
    assert.equal(ifNoneMatchPasses(parseCondition('"abc"', 'If-None-Match')!, tag), false);
    assert.equal(ifNoneMatchPasses('*', tag), false);
    assert.equal(ifNoneMatchPasses(parseCondition('"x"', 'If-None-Match')!, tag), true);
    assert.equal(ifNoneMatchPasses(parseCondition(',', 'If-None-Match')!, tag), true);
  });
});

describe('canonical JSON', () => {
  test('sorts the keys of every object, nested ones and those inside arrays, and writes undefined as null', () => {
    assert.equal(
      canonicalJson({ b: 1, a: [{ d: 2, c: 3 }, null, 'x'], e: { g: true, f: false } }),
      '{"a":[{"c":3,"d":2},null,"x"],"b":1,"e":{"f":false,"g":true}}',
    );
    assert.equal(canonicalJson(undefined), 'null');
    assert.equal(canonicalJson('text'), '"text"');
  });
});
