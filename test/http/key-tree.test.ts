// Who may read and revoke whom (issue 26 item 1), through the real app on every engine: a key
// manages itself and the keys it made (directly or through them); owner and bootstrap keys manage
// every key; a key never outlives its maker.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, fixedClock } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';

type Auth = { authorization: string };
const bearer = (key: string): Auth => ({ authorization: `Bearer ${key}` });

async function makeKey(app: FastifyInstance, by: Auth, payload: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: '/v1/keys', headers: by, payload });
  assert.equal(res.statusCode, 201, res.body);
  const created = res.json();
  return { ...created, auth: bearer(created.key) } as { id: number; key: string; parentId: number | null; expiresAt: string | null; auth: Auth };
}
const status = async (app: FastifyInstance, method: 'GET' | 'DELETE', url: string, headers: Auth) => (await app.inject({ method, url, headers })).statusCode;
const listed = async (app: FastifyInstance, headers: Auth) =>
  ((await app.inject({ method: 'GET', url: '/v1/keys', headers })).json() as { id: number }[]).map((k) => k.id);

for (const engine of ENGINES) {
  describe(`${engine}: who may read and revoke whom`, () => {
    test('a keys:admin key made by the owner cannot read or revoke the owner’s key (404), nor a sibling; it lists itself and its own keys', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine });
      const ownerId = (await app.inject({ method: 'GET', url: '/v1/keys', headers: auth })).json()[0].id as number;
      const deputy = await makeKey(app, auth, { name: 'deputy', scopes: ['keys:admin', 'pets:read'] });
      const sibling = await makeKey(app, auth, { name: 'sibling', scopes: ['pets:read'] });
      assert.equal(deputy.parentId, ownerId);
      for (const id of [ownerId, sibling.id]) {
        assert.equal(await status(app, 'DELETE', `/v1/keys/${id}`, deputy.auth), 404, `revoke ${id}`);
        assert.equal(await status(app, 'GET', `/v1/keys/${id}`, deputy.auth), 404, `read ${id}`);
      }
      assert.equal(await status(app, 'GET', '/v1/pets', auth), 200, 'the owner’s key still works');
      assert.equal(await status(app, 'GET', '/v1/pets', sibling.auth), 200);
      const helper = await makeKey(app, deputy.auth, { name: 'helper', scopes: ['keys:admin'] });
      const reader = await makeKey(app, helper.auth, { name: 'reader', scopes: ['keys:admin'] });
      assert.deepEqual(await listed(app, deputy.auth), [deputy.id, helper.id, reader.id]);
      assert.deepEqual(await listed(app, helper.auth), [helper.id, reader.id]);
      assert.deepEqual(await listed(app, auth), [ownerId, deputy.id, sibling.id, helper.id, reader.id], 'the owner’s key lists every key');
      assert.equal(await status(app, 'GET', `/v1/keys/${reader.id}`, deputy.auth), 200, 'a grandchild is readable');
      assert.equal(await status(app, 'GET', `/v1/keys/${deputy.id}`, helper.auth), 404, 'a child cannot read its parent');
      assert.equal(await status(app, 'DELETE', `/v1/keys/${deputy.id}`, reader.auth), 404, 'nor revoke an ancestor');
    });

    test('revoking a key ends the keys it made, directly or through them; the owner’s key revokes any key', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine });
      const deputy = await makeKey(app, auth, { name: 'deputy', scopes: ['keys:admin', 'pets:read'] });
      const helper = await makeKey(app, deputy.auth, { name: 'helper', scopes: ['keys:admin', 'pets:read'] });
      const reader = await makeKey(app, helper.auth, { name: 'reader', scopes: ['pets:read'] });
      const other = await makeKey(app, auth, { name: 'other', scopes: ['pets:read'] });
      assert.equal(await status(app, 'DELETE', `/v1/keys/${helper.id}`, deputy.auth), 204);
      for (const k of [helper, reader]) assert.equal(await status(app, 'GET', '/v1/pets', k.auth), 401);
      for (const k of [deputy, other]) assert.equal(await status(app, 'GET', '/v1/pets', k.auth), 200);
      const shown = (await app.inject({ method: 'GET', url: `/v1/keys/${reader.id}`, headers: deputy.auth })).json();
      assert.notEqual(shown.revokedAt, null, 'the descendant shows its revocation');
      assert.equal(await status(app, 'DELETE', `/v1/keys/${deputy.id}`, auth), 204);
      assert.equal(await status(app, 'GET', '/v1/pets', deputy.auth), 401);
      assert.equal(await status(app, 'GET', '/v1/pets', other.auth), 200);
    });

    test('descendants: the live keys a revocation would end, paged, only for a key the caller manages', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine });
      const deputy = await makeKey(app, auth, { name: 'deputy', scopes: ['keys:admin', 'pets:read'] });
      const helper = await makeKey(app, deputy.auth, { name: 'helper', scopes: ['keys:admin', 'pets:read'] });
      const reader = await makeKey(app, helper.auth, { name: 'reader', scopes: ['pets:read'] });
      const gone = await makeKey(app, deputy.auth, { name: 'gone', scopes: ['pets:read'] });
      const writer = await makeKey(app, deputy.auth, { name: 'writer', scopes: ['pets:read'] });
      const sibling = await makeKey(app, auth, { name: 'sibling', scopes: ['keys:admin'] });
      assert.equal(await status(app, 'DELETE', `/v1/keys/${gone.id}`, deputy.auth), 204);
      const under = (id: number, headers: Auth, query = '') => app.inject({ method: 'GET', url: `/v1/keys/${id}/descendants${query}`, headers });
      const names = (res: { json(): unknown }) => (res.json() as { name: string }[]).map((k) => k.name);
      assert.deepEqual(names(await under(deputy.id, auth)), ['helper', 'reader', 'writer'], 'revoked ones left out');
      assert.deepEqual(names(await under(deputy.id, deputy.auth)), ['helper', 'reader', 'writer'], 'a key sees below itself');
      assert.deepEqual(names(await under(helper.id, deputy.auth)), ['reader']);
      const first = await under(deputy.id, deputy.auth, '?limit=2');
      assert.deepEqual(names(first), ['helper', 'reader']);
      const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1];
      assert.ok(next, String(first.headers.link));
      const rest = await app.inject({ method: 'GET', url: next.replace(/^https?:\/\/[^/]+/, ''), headers: deputy.auth });
      assert.deepEqual(names(rest), ['writer']);
      assert.equal(rest.headers.link, undefined);
      assert.equal((await under(reader.id, deputy.auth)).json().length, 0);
      for (const [id, by, why] of [
        [deputy.id, helper.auth, 'a parent'],
        [sibling.id, deputy.auth, 'a sibling'],
        [999_999, auth, 'an unknown key'],
      ] as const) {
        const res = await under(id, by);
        assert.equal(res.statusCode, 404, why);
        assert.equal(res.json().code, 'not_found', why);
      }
      const readerOnly = await makeKey(app, auth, { name: 'reads pets', scopes: ['pets:read'] });
      assert.equal((await under(writer.id, readerOnly.auth)).statusCode, 403, 'keys:admin is needed');
      assert.equal(writer.parentId, deputy.id);
    });

    test('a tree holds at most KEYS_MAX_PER_TREE live keys (409 key_limit_reached); revoked keys free their place; an owner key starts new trees', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine, env: { KEYS_MAX_PER_TREE: '3', RATE_LIMIT_PER_MINUTE: '0' } });
      const root = await makeKey(app, auth, { name: 'root', scopes: ['keys:admin', 'pets:read'] });
      const child = await makeKey(app, root.auth, { name: 'child', scopes: ['keys:admin', 'pets:read'] });
      const grandchild = await makeKey(app, child.auth, { name: 'grandchild', scopes: ['pets:read'] });
      for (const by of [root.auth, child.auth]) {
        const refused = await app.inject({ method: 'POST', url: '/v1/keys', headers: by, payload: { name: 'one more', scopes: ['pets:read'] } });
        assert.equal(refused.statusCode, 409, refused.body);
        assert.equal(refused.json().code, 'key_limit_reached');
        assert.match(refused.json().message, new RegExp(`key ${root.id} and the keys below it\\) holds 3 live keys`));
      }
      assert.equal(await status(app, 'DELETE', `/v1/keys/${grandchild.id}`, child.auth), 204);
      await makeKey(app, child.auth, { name: 'in its place', scopes: ['pets:read'] });
      // The owner key is above the trees: each key it makes starts one.
      for (let i = 0; i < 4; i++) await makeKey(app, auth, { name: `tree ${i}`, scopes: ['pets:read'] });
    });

    test('a key never expires later than its maker: no expiry → the maker’s; a later one → 400; it is refused once the maker expires', async (t) => {
      const clock = fixedClock(new Date('2026-12-01T00:00:00.000Z'));
      const { app, auth } = await buildTestApp(t, { engine, clock });
      const admin = await makeKey(app, auth, { name: 'admin', scopes: ['keys:admin', 'pets:read'], expiresAt: '2027-01-01T00:00:00Z' });
      const child = await makeKey(app, admin.auth, { name: 'child', scopes: ['pets:read'] });
      assert.equal(child.expiresAt, '2027-01-01T00:00:00.000Z');
      const later = await app.inject({
        method: 'POST',
        url: '/v1/keys',
        headers: admin.auth,
        payload: { name: 'later', expiresAt: '2027-06-01T00:00:00Z', scopes: ['pets:read'] },
      });
      assert.equal(later.statusCode, 400);
      assert.equal(later.json().code, 'validation_failed');
      assert.match(later.json().message, /"expiresAt" must not be later than the expiry of the key that makes it \(2027-01-01T00:00:00\.000Z\)/);
      assert.equal(await status(app, 'GET', '/v1/pets', child.auth), 200);
      clock.set(new Date('2027-01-01T00:00:00.000Z'));
      assert.equal(await status(app, 'GET', '/v1/pets', admin.auth), 401);
      assert.equal(await status(app, 'GET', '/v1/pets', child.auth), 401, 'the child expired with its maker');
      assert.equal(await status(app, 'GET', '/v1/pets', auth), 200);
    });
  });
}

describe('bootstrap keys and the tree', () => {
  test('a bootstrap key reads and revokes every key; the keys it makes are top-level', async (t) => {
    const bootstrap = bearer('bootstrap-key-for-tests-0003');
    const { app, auth } = await buildTestApp(t, { env: { PETSTORE_API_KEYS: 'bootstrap-key-for-tests-0003' } });
    const made = await makeKey(app, bootstrap, { name: 'made by bootstrap', scopes: ['pets:read'] });
    assert.equal(made.parentId, null);
    const ownerId = (await listed(app, auth))[0];
    assert.deepEqual(await listed(app, bootstrap), [ownerId, made.id]);
    assert.equal(await status(app, 'DELETE', `/v1/keys/${ownerId}`, bootstrap), 204);
    assert.equal(await status(app, 'GET', '/v1/pets', auth), 401);
  });
});
