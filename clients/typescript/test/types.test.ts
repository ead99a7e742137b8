// Type tests: test/types/usage.ts compiled by the repository's TypeScript with --strict. Misuse marked
// `@ts-expect-error` must not compile; if it did, tsc would report the directive as unused and fail.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compile } from './helpers/tsc.ts';

const USAGE = fileURLToPath(new URL('types/usage.ts', import.meta.url));
// The sources import each other with .ts extensions (Node runs them as they are).
const SOURCES = { allowImportingTsExtensions: true };

test('tsc --strict: correct use compiles, every misuse marked @ts-expect-error does not', () => {
  const { status, output } = compile([USAGE], { compilerOptions: SOURCES });
  assert.equal(status, 0, output);
});

test('the harness can fail: an unused @ts-expect-error and a misuse are both reported', () => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-sdk-types-'));
  try {
    const file = join(dir, 'wrong.ts');
    const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));
    writeFileSync(
      file,
      `import { Petstore } from ${JSON.stringify(index)};\ndeclare const p: Petstore;\n// @ts-expect-error\np.pets.list({ status: 'sold' });\np.pets.create({ name: 'Rex' });\n`,
    );
    const { status, output } = compile([file], { compilerOptions: SOURCES });
    assert.notEqual(status, 0);
    assert.match(output, /wrong\.ts\(3,1\): error TS2578: Unused '@ts-expect-error' directive/);
    assert.match(output, /wrong\.ts\(5,15\): error TS2741: Property 'categoryId' is missing/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
