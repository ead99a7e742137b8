// The README's `npm install` as a newcomer runs it: npm on the system Node (20 on these machines),
// which would warn EBADENGINE about every package that wants Node >= 22 although the project runs
// them on its own Node 24. The project's .npmrc keeps that install quiet; this keeps it so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { ROOT, UNCOVERED } from '../helpers/process.ts';

const SYSTEM_NODE = '/usr/bin/node';
const SYSTEM_NPM = '/usr/bin/npm';

test('npm install on the system Node prints no warning', (t) => {
  if (!existsSync(SYSTEM_NODE) || !existsSync(SYSTEM_NPM)) {
    assert.ok(!process.env.CI, `${SYSTEM_NODE} or ${SYSTEM_NPM} is missing`);
    return t.skip('no system node and npm');
  }
  // npm's own script, run by the system Node by path: under npm test, `npm` would find the project's Node 24 first.
  // A dry run builds the same tree and makes the same engine checks as the install, and changes nothing.
  const run = spawnSync(SYSTEM_NODE, [SYSTEM_NPM, 'install', '--dry-run', '--offline', '--no-audit', '--no-fund'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', ...UNCOVERED },
  });
  assert.equal(run.status, 0, run.stderr);
  assert.doesNotMatch(run.stdout + run.stderr, /npm warn/i);
});
