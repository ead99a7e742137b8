import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { runCli } from '../../src/cli/cli.ts';
import { loadConfig } from '../../src/config.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import { run } from '../helpers/process.ts';

function setup(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, env, { out: (s) => out.push(s), err: (s) => err.push(s) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  return { dir, env, cli };
}

describe('petstore CLI', () => {
  test('keys create prints the key once; list shows no secret; the database holds only its hash', async (t) => {
    const { dir, cli } = setup(t);
    const created = await cli('keys', 'create', '--name', 'ci', '--scopes', 'pets:read,orders:read');
    assert.equal(created.code, 0);
    const key = /(pst_[A-Za-z0-9_-]{43})/.exec(created.out)![1];
    assert.match(created.out, /created key 1 "ci" \(pets:read,orders:read\)/);
    const listed = await cli('keys', 'list');
    assert.match(listed.out, /^1\tpst_....…\tci\tpets:read,orders:read\tcreated .*\tactive$/);
    assert.ok(!listed.out.includes(key.slice(8)));
    for (const f of readdirSync(dir)) assert.ok(!readFileSync(join(dir, f)).includes(key), `${f} holds no clear key`);
  });

  test('keys revoke: the running service refuses the key on its next request', async (t) => {
    const { env, cli } = setup(t);
    const key = /(pst_\S+)/.exec((await cli('keys', 'create', '--name', 'x')).out)![1];
    const storage = openSqlite({ path: env.DATABASE_URL.slice('sqlite:'.length) });
    const app = await buildApp({ config: loadConfig(env), storage });
    t.after(async () => {
      await app.close();
      await storage.close();
    });
    // A real listening server: its HTTP requests are what the revocation must reach.
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v1/pets`;
    const auth = { authorization: `Bearer ${key}` };
    assert.equal((await fetch(url, { headers: auth })).status, 200);
    const revoked = await cli('keys', 'revoke', '1');
    assert.equal(revoked.code, 0);
    assert.equal((await fetch(url, { headers: auth })).status, 401);
    assert.equal((await cli('keys', 'revoke', '1')).code, 1, 'revoking twice says so');
    assert.match((await cli('keys', 'list')).out, /\trevoked /);
  });

  test('categories add makes a category usable by createPet', async (t) => {
    const { env, cli } = setup(t);
    const added = await cli('categories', 'add', 'Amphibians');
    assert.equal(added.code, 0);
    assert.match(added.out, /created category 7 "Amphibians"/);
    assert.equal((await cli('categories', 'add', 'amphibians')).code, 1, 'names are unique, case-insensitively');
    assert.match((await cli('categories', 'list')).out, /^1\tDogs\n2\tCats\n3\tBirds\n4\tFish\n5\tReptiles\n6\tSmall mammals\n7\tAmphibians$/);
    const storage = openSqlite({ path: env.DATABASE_URL.slice('sqlite:'.length) });
    t.after(() => storage.close());
    const pet = await storage.pets.create({ name: 'Frog', categoryId: 7, status: 'available' }, { now: new Date() });
    assert.equal(pet.categoryId, 7);
  });

  test('usage errors exit 2 with usage; keys create needs a name; scopes are checked', async (t) => {
    const { cli } = setup(t);
    assert.equal((await cli('keys', 'create')).code, 2);
    const badScope = await cli('keys', 'create', '--name', 'x', '--scopes', 'root');
    assert.equal(badScope.code, 2);
    assert.match(badScope.err, /unknown scope "root"/);
    assert.equal((await cli('frobnicate')).code, 2);
    assert.equal((await cli('keys', 'revoke', 'abc')).code, 2);
    assert.equal((await cli('--help')).code, 0);
  });

  test('migrate applies migrations; the bin runs under the project Node', async (t) => {
    const { env } = setup(t);
    const r = await run(['bin/petstore.js', 'migrate'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /migrations applied \(sqlite\)/);
    const bad = await run(['bin/petstore.js', 'keys', 'list', '--bogus'], env);
    assert.equal(bad.code, 2);
    assert.ok(!bad.stderr.includes('    at '), 'no stack trace');
  });
});
