import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { linesTo } from '../../src/logger.ts';

test('writes each line whole, in order, before write returns; a failed write throws', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-log-lines-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'out.log');
  const fd = openSync(path, 'w');
  const lines = linesTo(fd);
  lines.write('{"msg":"first"}\n');
  assert.equal(readFileSync(path, 'utf8'), '{"msg":"first"}\n', 'on disk before the next line');
  lines.write('{"msg":"Ünal 🐕"}\n');
  assert.equal(readFileSync(path, 'utf8'), '{"msg":"first"}\n{"msg":"Ünal 🐕"}\n');
  closeSync(fd);
  assert.throws(() => lines.write('lost\n'), { code: 'EBADF' });
});
