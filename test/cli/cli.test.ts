import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { runCli } from '../../src/cli/cli.ts';
import { insertKey } from '../helpers/storage.ts';
import { loadConfig } from '../../src/config.ts';
import { SCOPES } from '../../src/keys/key.types.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import { run } from '../helpers/process.ts';
import { createPet } from '../../src/pets/pet.service.ts';
import { petRecord } from '../helpers/pets.ts';

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
    assert.match(listed.out, /^1\tpst_....…\tci\tpets:read,orders:read\tcreated .*\tactive\ttop-level$/);
    assert.ok(!listed.out.includes(key.slice(8)));
    for (const f of readdirSync(dir)) assert.ok(!readFileSync(join(dir, f)).includes(key), `${f} holds no clear key`);
  });

  test('the operator stays above the key tree: --owner makes an owner key; keys list shows every key and its maker; keys revoke ends a key and the keys it made', async (t) => {
    const { env, cli } = setup(t);
    assert.match((await cli('keys', 'create', '--name', 'boss', '--scopes', 'all', '--owner')).out, /created key 1 "boss" \(.*, owner\)/);
    const admin = /(pst_\S+)/.exec((await cli('keys', 'create', '--name', 'admin', '--scopes', 'keys:admin,pets:read')).out)![1];
    const storage = openSqlite({ path: env.DATABASE_URL.slice('sqlite:'.length) });
    const app = await buildApp({ config: loadConfig(env), storage });
    t.after(async () => {
      await app.close();
      await storage.close();
    });
    const made = await app.inject({
      method: 'POST',
      url: '/v1/keys',
      headers: { authorization: `Bearer ${admin}` },
      payload: { name: 'child', scopes: ['pets:read'] },
    });
    assert.equal(made.statusCode, 201);
    const listed = (await cli('keys', 'list')).out;
    assert.match(listed, /^1\t.*\tboss\t.*\tactive\towner$/m);
    assert.match(listed, /^2\t.*\tadmin\t.*\tactive\ttop-level$/m);
    assert.match(listed, /^3\t.*\tchild\t.*\tactive\tmade by key 2$/m);
    assert.equal((await cli('keys', 'revoke', '2')).code, 0);
    assert.match((await cli('keys', 'list')).out, /^3\t.*\tchild\t.*\trevoked .*\tmade by key 2$/m);
    // The activity log tells the operator's writes from the keys' (docs/api.md, "Activity").
    assert.deepEqual(
      (await storage.activity.list({ limit: 10 })).map((e) => `${e.type} ${e.resource} ${e.actor.name}`),
      ['key.revoked key:2 petstore CLI', 'key.created key:3 admin', 'key.created key:2 petstore CLI', 'key.created key:1 petstore CLI'],
    );
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

  test("staff create --role owner prints a one-time link whose token only the database's hash knows; staff list shows the person; a taken address is refused", async (t) => {
    const { dir, cli } = setup(t);
    const created = await cli('staff', 'create', '--role', 'owner', '--email', 'Olive@Shop.example', '--name', 'Olive');
    assert.equal(created.code, 0, created.err);
    assert.match(created.out, /^invited person 1 "Olive" <olive@shop\.example> as owner\./);
    const token = /#\/welcome\?token=(psi_[A-Za-z0-9_-]{43})$/.exec(created.out)![1];
    assert.match(created.out, /http:\/\/127\.0\.0\.1:8080\/console\/#\/welcome\?token=/);
    for (const f of readdirSync(dir)) assert.ok(!readFileSync(join(dir, f)).includes(token), `${f} holds no clear token`);
    const listed = await cli('staff', 'list');
    assert.match(listed.out, /^1\tolive@shop\.example\tOlive\towner\tinvited\tlast sign-in never$/);
    const again = await cli('staff', 'create', '--role', 'viewer', '--email', 'olive@shop.example', '--name', 'Olive');
    assert.equal(again.code, 1);
    assert.match(again.err, /staff_exists/);
    const bad = await cli('staff', 'create', '--role', 'boss', '--email', 'x@shop.example', '--name', 'X');
    assert.equal(bad.code, 2);
    assert.equal((await cli('staff', 'create', '--role', 'owner')).code, 2);
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
    const pet = await createPet(storage, petRecord({ name: 'Frog', categoryId: 7, status: 'available' }), { now: new Date() });
    assert.equal(pet.categoryId, 7);
  });

  test("categories add follows the API's rules: the same name checks, a duplicate is category_exists", async (t) => {
    const { cli } = setup(t);
    const duplicate = await cli('categories', 'add', 'dogs');
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.err, /a category named "dogs" already exists .*\(category_exists\)/);
    for (const [name, message] of [
      [' ', /category "name" must not be blank/],
      ['x'.repeat(101), /category "name" must be at most 100 characters long/],
    ] as const) {
      const r = await cli('categories', 'add', name);
      assert.equal(r.code, 2);
      assert.match(r.err, message);
    }
    assert.equal((await cli('categories', 'add')).code, 2);
    assert.match((await cli('categories', 'add', '  Guinea pigs ')).out, /created category 7 " {2}Guinea pigs "/, 'stored as given, like the API stores it');
  });

  test('keys create: the default set leaves the admin scopes out; --scopes can name them, or all; --expires-at takes an RFC 3339 instant in the future', async (t) => {
    const { cli, env } = setup(t);
    const plain = await cli('keys', 'create', '--name', 'staff');
    assert.match(plain.out, /\(pets:read,pets:write,health:read,health:write,orders:read,orders:write,categories:write,events:read\)/);
    const admin = await cli('keys', 'create', '--name', 'admin', '--scopes', 'keys:admin,pets:read');
    assert.match(admin.out, /\(keys:admin,pets:read\)/);
    const owner = await cli('keys', 'create', '--name', 'owner', '--scopes', 'all');
    assert.match(owner.out, new RegExp(`\\(${SCOPES.join(',')}\\)`), 'every scope, the admin ones included');
    const mixed = await cli('keys', 'create', '--name', 'mixed', '--scopes', 'all,pets:read');
    assert.equal(mixed.code, 2);
    assert.match(mixed.err, /"all" stands alone/);
    const expiring = await cli('keys', 'create', '--name', 'temp', '--expires-at', '2099-01-01T01:00:00+01:00');
    assert.equal(expiring.code, 0, expiring.err);
    assert.match(expiring.out, /expires 2099-01-01T00:00:00\.000Z/);
    assert.match((await cli('keys', 'list')).out, /temp\t.*\tactive until 2099-01-01T00:00:00\.000Z\ttop-level$/m);
    const past = await cli('keys', 'create', '--name', 'late', '--expires-at', '2001-01-01T00:00:00Z');
    assert.equal(past.code, 1);
    assert.match(past.err, /"expiresAt" must be in the future/);
    const malformed = await cli('keys', 'create', '--name', 'bad', '--expires-at', 'tomorrow');
    assert.equal(malformed.code, 2);
    assert.match(malformed.err, /key "expiresAt" must be a valid date-time/);
    assert.equal((await cli('keys', 'create', '--name', ' ')).code, 2, 'a blank name');
    // A key whose expiry has passed (made directly: the CLI refuses a past expiry) is listed as expired.
    const storage = openSqlite({ path: env.DATABASE_URL.slice('sqlite:'.length) });
    await insertKey(
      storage,
      { name: 'old', prefix: 'pst_oldk', hash: 'f'.repeat(64), scopes: ['pets:read'], expiresAt: new Date('2020-01-01T00:00:00Z') },
      { now: new Date('2019-01-01T00:00:00Z') },
    );
    await storage.close();
    assert.match((await cli('keys', 'list')).out, /\told\t.*\texpired 2020-01-01T00:00:00\.000Z\ttop-level$/m);
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
