// GET /v1/keys/me: any valid key reads what it is and may do, on every engine; never a secret.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, fixedClock } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

for (const engine of ENGINES) {
  describe(`GET /v1/keys/me (${engine})`, () => {
    test('answers the calling key: id, name, scopes and expiry, to a key holding no admin scope', async (t) => {
      const clock = fixedClock(new Date('2026-11-22T12:00:00.000Z'));
      const { app, auth } = await buildTestApp(t, { engine, clock });
      const created = await app.inject({
        method: 'POST',
        url: '/v1/keys',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: { name: 'front desk', scopes: ['pets:read'], expiresAt: '2027-01-01T00:00:00Z' },
      });
      assert.equal(created.statusCode, 201);
      const { id, key } = created.json();

      const res = await app.inject({ method: 'GET', url: '/v1/keys/me', headers: bearer(key) });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.deepEqual(res.json(), { id, name: 'front desk', scopes: ['pets:read'], expiresAt: '2027-01-01T00:00:00.000Z' });
      assert.doesNotMatch(res.body, /pst_/, 'neither the secret nor its prefix');
    });

    test('a key configured in PETSTORE_API_KEYS has every scope and no id, name or expiry', async (t) => {
      const configured = `pst_${'c'.repeat(43)}`;
      const { app } = await buildTestApp(t, { engine, env: { PETSTORE_API_KEYS: configured } });
      const res = await app.inject({ method: 'GET', url: '/v1/keys/me', headers: bearer(configured) });
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.id, null);
      assert.equal(body.name, null);
      assert.equal(body.expiresAt, null);
      assert.ok(body.scopes.includes('keys:admin') && body.scopes.includes('pets:write'));
    });

    test('refuses a revoked key with 401, and a request without a key', async (t) => {
      const { app, auth } = await buildTestApp(t, { engine });
      const created = (
        await app.inject({ method: 'POST', url: '/v1/keys', headers: { ...auth, 'content-type': 'application/json' }, payload: { name: 'short-lived' } })
      ).json();
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/keys/${created.id}`, headers: auth })).statusCode, 204);
      const revoked = await app.inject({ method: 'GET', url: '/v1/keys/me', headers: bearer(created.key) });
      assert.equal(revoked.statusCode, 401);
      assert.equal(revoked.json().code, 'unauthorized');
      assert.equal((await app.inject({ method: 'GET', url: '/v1/keys/me' })).statusCode, 401);
    });
  });
}
