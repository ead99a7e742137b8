// Where the first-run key is shown (src/first-run-key.ts): stderr when it is a terminal, else a
// new 0600 file whose path is printed; never stdout (the JSON log stream).
import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { firstRunKeyFile, revealFirstRunKey } from '../../src/first-run-key.ts';

const KEY = 'pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const BASE = 'http://127.0.0.1:8080/v1';

function stream(isTTY: boolean) {
  const chunks: string[] = [];
  return { isTTY, write: (s: string) => chunks.push(s), text: () => chunks.join('') };
}
function folder(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-first-run-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('on a terminal the key and a curl line are printed on stderr, and no file is written', async (t) => {
  const dir = folder(t);
  const stderr = stream(true);
  const file = join(dir, 'first-run-key');
  assert.deepEqual(await revealFirstRunKey(async () => KEY, BASE, stderr, file), {});
  assert.match(stderr.text(), new RegExp(`^  ${KEY}$`, 'm'));
  assert.ok(stderr.text().includes(`curl -H 'Authorization: Bearer ${KEY}' ${BASE}/pets`));
  assert.throws(() => statSync(file), { code: 'ENOENT' });
});

test('without a terminal the key goes to a new file with mode 0600, whose path (not the key) is printed', async (t) => {
  const dir = folder(t);
  const stderr = stream(false);
  const file = join(dir, 'first-run-key');
  assert.deepEqual(await revealFirstRunKey(async () => KEY, BASE, stderr, file), { file });
  assert.equal(readFileSync(file, 'utf8'), `${KEY}\n`);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.match(stderr.text(), new RegExp(`^  ${file}$`, 'm'));
  assert.ok(!stderr.text().includes(KEY.slice(4)), 'the key is not printed');
});

test('a file already there is replaced, not reused: neither its permissions nor a symbolic link in its place', async (t) => {
  const dir = folder(t);
  const file = join(dir, 'first-run-key');
  writeFileSync(file, 'old', { mode: 0o644 });
  await revealFirstRunKey(async () => KEY, BASE, stream(false), file);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const target = join(dir, 'elsewhere');
  writeFileSync(target, 'keep me', { mode: 0o644 });
  rmSync(file);
  symlinkSync(target, file);
  await revealFirstRunKey(async () => KEY, BASE, stream(false), file);
  assert.ok(!lstatSync(file).isSymbolicLink());
  assert.equal(readFileSync(target, 'utf8'), 'keep me', 'the link’s target is untouched');
});

test('a file that cannot be created fails before the key is made', async (t) => {
  const dir = folder(t);
  let minted = false;
  await assert.rejects(
    revealFirstRunKey(
      async () => {
        minted = true;
        return KEY;
      },
      BASE,
      stream(false),
      join(dir, 'missing', 'first-run-key'),
    ),
    { code: 'ENOENT' },
  );
  assert.equal(minted, false);
});

test('the file lies beside the SQLite database, with PostgreSQL in the working directory', async () => {
  assert.equal(await firstRunKeyFile({ engine: 'sqlite', path: 'data/petstore.db' }, '/srv/app'), '/srv/app/data/first-run-key');
  assert.equal(await firstRunKeyFile({ engine: 'sqlite', path: '/var/lib/petstore/p.db' }, '/srv/app'), '/var/lib/petstore/first-run-key');
  assert.equal(await firstRunKeyFile({ engine: 'postgres', url: 'postgres://db/petstore', poolSize: 10 }, '/srv/app'), '/srv/app/first-run-key');
});

test('with an in-memory database the file is in a new private folder under the temporary directory, not the working directory', async (t) => {
  const temp = folder(t);
  const cwd = folder(t);
  const file = await firstRunKeyFile({ engine: 'sqlite', path: ':memory:' }, cwd, temp);
  assert.equal(dirname(dirname(file)), temp);
  assert.equal(basename(file), 'first-run-key');
  assert.equal(statSync(dirname(file)).mode & 0o777, 0o700, 'only this user may enter the folder');
  await revealFirstRunKey(async () => KEY, BASE, stream(false), file);
  assert.equal(readFileSync(file, 'utf8'), `${KEY}\n`);
  assert.deepEqual(readdirSync(cwd), [], 'nothing in the working directory');
  const again = await firstRunKeyFile({ engine: 'sqlite', path: ':memory:' }, cwd, temp);
  assert.notEqual(dirname(again), dirname(file), 'each run its own folder');
});
