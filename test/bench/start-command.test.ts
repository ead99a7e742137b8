// The bench starts each checkout the way its `npm start` does (bench/processes.ts startCommand).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { startCommand } from '../../bench/processes.ts';

test('startCommand reads the environment assignments and node flags of a start script', () => {
  assert.deepEqual(startCommand('MALLOC_ARENA_MAX=2 node --max-semi-space-size=4 src/main.ts'), {
    env: { MALLOC_ARENA_MAX: '2' },
    flags: ['--max-semi-space-size=4'],
  });
  assert.deepEqual(startCommand('A=1 B_2=x=y node --a --b=3 src/main.ts'), { env: { A: '1', B_2: 'x=y' }, flags: ['--a', '--b=3'] });
  assert.deepEqual(startCommand('node src/main.ts'), { env: {}, flags: [] });
  // `exec` makes node the process npm signals (package.json; docs/operations.md).
  assert.deepEqual(startCommand('MALLOC_ARENA_MAX=2 exec node --max-semi-space-size=16 src/main.ts'), {
    env: { MALLOC_ARENA_MAX: '2' },
    flags: ['--max-semi-space-size=16'],
  });
  // Anything else is not understood: the service then starts with no flags and no extra variables.
  assert.deepEqual(startCommand('tsx src/main.ts'), { env: {}, flags: [] });
  assert.deepEqual(startCommand(undefined), { env: {}, flags: [] });
});

test("this checkout's own start script is understood (the bench runs the service as npm start does)", () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const start = startCommand(pkg.scripts.start);
  assert.equal(start.env.MALLOC_ARENA_MAX, '2');
  assert.ok(start.flags.includes('--max-semi-space-size=16'), pkg.scripts.start);
});
