import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { stripped } from './strip-cache.ts';

const app = join(import.meta.dirname, '../../src/app.ts');

test("the cached JavaScript of a module is byte for byte what Node's own loader makes of it", () => {
  const url = pathToFileURL(app).href;
  const dir = mkdtempSync(join(tmpdir(), 'strip-'));
  try {
    const ours = stripped(url, readFileSync(app, 'utf8'), dir);
    const nodes = execFileSync(
      process.execPath,
      [
        '--expose-internals',
        '-e',
        `process.stdout.write(require('internal/modules/typescript').stripTypeScriptModuleTypes(require('fs').readFileSync(${JSON.stringify(app)}, 'utf8'), ${JSON.stringify(url)}))`,
      ],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
    );
    assert.equal(ours, nodes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a source is stripped once: later loads read the cache; a changed source is stripped anew', () => {
  const dir = mkdtempSync(join(tmpdir(), 'strip-'));
  try {
    const url = 'file:///virtual/a.ts';
    assert.equal(stripped(url, 'const a: number = 1;', dir), 'const a         = 1;\n\n//# sourceURL=file:///virtual/a.ts');
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file), 'from the cache');
    assert.equal(stripped(url, 'const a: number = 1;', dir), 'from the cache');
    assert.equal(stripped(url, 'const a: number = 2;', dir), 'const a         = 2;\n\n//# sourceURL=file:///virtual/a.ts');
    assert.equal(readdirSync(dir).length, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
