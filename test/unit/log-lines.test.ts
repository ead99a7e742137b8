import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Fastify from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { linesTo, loggerOptions } from '../../src/logger.ts';

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

test('a line carries level as a word and time as ISO 8601 in UTC, the same text within a millisecond', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: Date.UTC(2026, 10, 28, 10, 44, 21, 123) });
  const lines: string[] = [];
  const { log } = Fastify({ logger: { ...(loggerOptions(loadConfig({})) as object), stream: { write: (s: string) => void lines.push(s) } } });
  log.info('one');
  log.warn('two');
  t.mock.timers.tick(1);
  log.error('three');
  const parsed = lines.map((l) => JSON.parse(l) as { level: string; time: string; msg: string });
  assert.deepEqual(
    parsed.map(({ level, time, msg }) => ({ level, time, msg })),
    [
      { level: 'info', time: '2026-11-28T10:44:21.123Z', msg: 'one' },
      { level: 'warn', time: '2026-11-28T10:44:21.123Z', msg: 'two' },
      { level: 'error', time: '2026-11-28T10:44:21.124Z', msg: 'three' },
    ],
  );
});
