import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { SCOPES } from '../../src/keys/key.types.ts';
import { firstRunKey, run, startService } from '../helpers/process.ts';

function tempDb(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-main-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${join(dir, 'data', 'petstore.db')}`;
}

describe('the service started as `npm start` starts it', () => {
  test('first run without a terminal: the key goes to a 0600 file beside the database, named with a curl line on stderr, never into the JSON log lines; it works over real HTTP; SIGTERM exits 0', async (t) => {
    const DATABASE_URL = tempDb(t);
    const svc = await startService({ DATABASE_URL, LOG_LEVEL: 'info' });
    t.after(() => svc.stop('SIGKILL'));
    const shown = firstRunKey(svc);
    assert.ok(shown, `the key file is named on stderr: ${svc.stderr()}`);
    const { key, file } = shown;
    assert.match(key, /^pst_[A-Za-z0-9_-]{43}$/);
    assert.equal(file, join(dirname(DATABASE_URL.slice('sqlite:'.length)), 'first-run-key'));
    assert.equal(statSync(file).mode & 0o777, 0o600, 'readable by the service user only');
    assert.match(svc.stderr(), new RegExp(`curl -H "Authorization: Bearer \\$\\(cat '${file}'\\)" http://127\\.0\\.0\\.1:\\d+/v1/pets`));
    assert.ok(!svc.stdout().includes(key.slice(4)) && !svc.stderr().includes(key.slice(4)), 'the key itself is printed nowhere');
    const lines = svc.stdout().trim().split('\n');
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `stdout holds JSON log lines only: ${line}`);
    assert.ok(
      lines.some((l) => JSON.parse(l).file === file),
      'a log line names the file, not the key',
    );
    const auth = { authorization: `Bearer ${key}` };

    const created = await fetch(`${svc.base}/v1/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    assert.equal(created.status, 201);
    const pet = await created.json();
    assert.equal(created.headers.get('location'), `/v1/pets/${pet.id}`);
    const listed = await fetch(`${svc.base}/v1/pets`, { headers: auth });
    // A listed pet carries its entity tag as `etag`: the ETag its creation answered with.
    assert.deepEqual(await listed.json(), [{ ...pet, etag: created.headers.get('etag') }]);
    const unauth = await fetch(`${svc.base}/v1/pets`);
    assert.equal(unauth.status, 401);
    assert.equal(unauth.headers.get('www-authenticate'), 'Bearer realm="petstore"');
    assert.deepEqual(Object.keys(await unauth.json()).sort(), ['code', 'message', 'status']);
    assert.ok(!svc.stdout().includes('"authorization"') && !svc.stderr().includes(key.slice(4)), 'the key never reaches the logs');
    // The first-run key is the store owner's: every scope, keys:admin included.
    const keys = await fetch(`${svc.base}/v1/keys`, { headers: auth });
    assert.equal(keys.status, 200);
    assert.deepEqual(
      (await keys.json()).map((k: { scopes: string[] }) => k.scopes),
      [[...SCOPES]],
    );

    const door = await fetch(`${svc.base}/`, { redirect: 'manual' });
    assert.equal(door.status, 302, 'GET / sends a person to the API reference');
    assert.equal(door.headers.get('location'), '/console/');
    assert.match(svc.stderr(), /Pet Store ready: open http:\/\/127\.0\.0\.1:\d+\/console\//, 'the start-up banner names the console, on stderr');

    assert.equal(await svc.stop('SIGTERM'), 0);

    // Second start on the same database: data kept, no new key minted.
    const again = await startService({ DATABASE_URL });
    t.after(() => again.stop('SIGKILL'));
    assert.ok(!/pst_/.test(again.stdout()) && !/first-run-key/.test(again.stderr()), 'no second first-run key');
    const kept = await fetch(`${again.base}/v1/pets`, { headers: auth });
    assert.deepEqual(await kept.json(), [{ ...pet, etag: created.headers.get('etag') }]);
    assert.equal(await again.stop('SIGTERM'), 0);
  });

  test('in production no key is minted; it says how to create one', async (t) => {
    const svc = await startService({ DATABASE_URL: tempDb(t), NODE_ENV: 'production', LOG_LEVEL: 'info' });
    t.after(() => svc.stop('SIGKILL'));
    assert.ok(!/pst_[A-Za-z0-9_-]{43}/.test(svc.stdout()));
    assert.match(svc.stdout() + svc.stderr(), /petstore keys create/);
    assert.equal((await fetch(`${svc.base}/v1/pets`)).status, 401);
  });

  test('bootstrap keys from PETSTORE_API_KEYS suppress the first-run key and work', async (t) => {
    const svc = await startService({ DATABASE_URL: tempDb(t), PETSTORE_API_KEYS: 'bootstrap-key-for-tests-0001' });
    t.after(() => svc.stop('SIGKILL'));
    assert.ok(!/pst_/.test(svc.stdout()));
    assert.equal((await fetch(`${svc.base}/v1/pets`, { headers: { authorization: 'Bearer bootstrap-key-for-tests-0001' } })).status, 200);
  });

  test('invalid configuration stops start-up with one line naming the variable', async () => {
    for (const [env, variable] of [
      [{ PORT: 'eighty' }, 'PORT'],
      [{ DATABASE_URL: 'mysql://db' }, 'DATABASE_URL'],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    ] as const) {
      const r = await run(['src/main.ts'], env);
      assert.equal(r.code, 2, JSON.stringify(env));
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0], new RegExp(`^petstore: invalid configuration: ${variable}: `));
      assert.ok(!r.stderr.includes('    at '), 'no stack trace');
    }
  });
});
