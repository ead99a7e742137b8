// README.md's configuration table against the configuration schema (src/config.ts): every variable
// the service reads has a row with its bounds, and every whole-number setting's stated range is the
// one loadConfig enforces — both ends accepted, one past either end refused.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, INTEGER_BOUNDS, loadConfig } from '../../src/config.ts';
import { ROOT } from '../helpers/process.ts';

/** The table's rows: variable → its bounds cell. */
function table(): Map<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = /## Configuration\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  assert.match(section, /^\| variable \| default \| bounds \| meaning \|$/m, 'the table has a bounds column');
  const rows = new Map<string, string>();
  for (const [, variable, bounds] of section.matchAll(/^\| `([A-Z_]+)` \| [^|]* \| ([^|]*) \| /gm)) rows.set(variable, bounds.trim());
  return rows;
}

/** Every variable loadConfig reads, seen through an environment that records each lookup. */
function variablesRead(): Set<string> {
  const seen = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_, name) => {
      if (typeof name === 'string') seen.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  return seen;
}

/** The two timeouts bound each other (headers ≤ request): an accepted value is given to both. */
function envWith(name: string, value: number, both = false): Record<string, string> {
  const env: Record<string, string> = { [name]: String(value) };
  if (both && (name === 'HEADERS_TIMEOUT_MS' || name === 'REQUEST_TIMEOUT_MS')) {
    env.HEADERS_TIMEOUT_MS = String(value);
    env.REQUEST_TIMEOUT_MS = String(value);
  }
  return env;
}

test('every variable the service reads has a row with its bounds, and every row is a variable it reads', () => {
  const rows = table();
  const read = variablesRead();
  assert.deepEqual(
    [...read].filter((v) => !rows.has(v)),
    [],
    'read but not in the table',
  );
  assert.deepEqual(
    [...rows.keys()].filter((v) => !read.has(v)),
    [],
    'in the table but never read',
  );
  for (const [variable, bounds] of rows) assert.notEqual(bounds, '', `${variable} states its bounds`);
});

test("each whole-number setting's range in the table is the one loadConfig enforces", () => {
  const rows = table();
  assert.ok(INTEGER_BOUNDS.size >= 20, 'the schema names its whole-number settings');
  for (const [variable, { min, max }] of INTEGER_BOUNDS) {
    const stated = /^(\d+) – (\d+)\b/.exec(rows.get(variable) ?? '');
    assert.ok(stated, `${variable}: the bounds cell starts with "min – max", got "${rows.get(variable)}"`);
    assert.deepEqual([Number(stated[1]), Number(stated[2])], [min, max], variable);
    loadConfig(envWith(variable, min, true));
    loadConfig(envWith(variable, max, true));
    assert.throws(
      () => loadConfig(envWith(variable, max + 1)),
      (err: unknown) => err instanceof ConfigError && err.variable === variable,
    );
    if (min > 0)
      assert.throws(
        () => loadConfig(envWith(variable, min - 1)),
        (err: unknown) => err instanceof ConfigError && err.variable === variable,
      );
  }
});
