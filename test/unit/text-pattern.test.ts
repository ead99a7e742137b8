// TEXT_PATTERN is read by validators this service does not run: generated clients, linters
// (Spectral reads patterns without the `u` flag), other languages' regex engines. It must mean
// the same with and without the `u` flag.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEXT_PATTERN } from '../../src/schemas.ts';

const READINGS = [new RegExp(TEXT_PATTERN, 'u'), new RegExp(TEXT_PATTERN)];

test('ordinary names pass and blank ones fail alike with and without the u flag', () => {
  for (const re of READINGS) {
    for (const name of ['dog', 'Default', 'Rex', 'Ignorable', 'x', ' a ', 'naïve café', '猫', 'a\u200bb', 'Labrador 🐕'])
      assert.ok(re.test(name), `${re.flags || 'no flags'}: ${JSON.stringify(name)} is text`);
    for (const name of ['', ' ', '\t\n', '\u200b\u200e', '\u00ad', '\ufeff', '\u2060\u034f', '\ufe0f', '\u3164', 'a\u0000', '\u0000'])
      assert.ok(!re.test(name), `${re.flags || 'no flags'}: ${JSON.stringify(name)} is blank or holds NUL`);
  }
});
