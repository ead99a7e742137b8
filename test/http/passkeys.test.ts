// Passkeys through the real app, on every engine (one shared app per engine, STAFF_REQUIRE_PASSKEY
// on): a sign-in with an assertion signed by a software authenticator's key; what is refused with a
// stable code — an unknown or reused challenge, another person's challenge, an unknown passkey, a
// signature by another key, an unverifiable registration; listing and removing; and the rule that
// an owner or manager with a passkey may not sign in with a password. The browser ceremonies
// (registration included) are in test/console/console.test.ts, with Chromium's virtual authenticator.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { hashToken } from '../../src/staff/staff.service.ts';
import { PasswordHasher } from '../../src/staff/staff.password.ts';
import type { Role } from '../../src/staff/staff.roles.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { sharedTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/engines.ts';
import { assertError } from '../helpers/errors.ts';
import { assertion, authenticator, PASSKEY_ORIGIN as ORIGIN, PASSKEY_RP_ID as RP_ID } from '../helpers/passkeys.ts';

const PASSWORD = 'tabby-ferret-lantern';
let passwordHash: Promise<string> | undefined;

async function person(storage: Storage, role: Role): Promise<number> {
  passwordHash ??= new PasswordHasher().hash(PASSWORD);
  const hash = await passwordHash;
  const email = `${role}@shop.example`;
  return storage.transaction(async (tx) => {
    const p = await tx.staff.insert(
      { name: role, email, role, state: 'invited', invitation: { hash: hashToken(email), expiresAt: new Date(Date.now() + 3_600_000) } },
      new Date(),
    );
    await tx.staff.update(p!.id, { state: 'active', passwordHash: hash, invitation: null });
    return p!.id;
  });
}

async function signInOptions(app: FastifyInstance): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/v1/sessions/passkey/options', headers: { origin: ORIGIN } });
  assert.equal(res.statusCode, 200, res.body);
  const options = res.json();
  assert.deepEqual([options.rpId, options.userVerification], [RP_ID, 'required']);
  return options.challenge as string;
}

async function withPasskey(storage: Storage, staffId: number) {
  const key = authenticator();
  const stored = await storage.transaction((tx) =>
    tx.staff.addPasskey({ staffId, credentialId: key.credentialId, publicKey: key.cose, counter: 0, transports: ['internal'] }, new Date()),
  );
  return { ...key, id: stored!.id };
}

async function signIn(app: FastifyInstance, email: string) {
  const res = await app.inject({ method: 'POST', url: '/v1/sessions', payload: { email, password: PASSWORD } });
  assert.equal(res.statusCode, 201, res.body);
  const cookie = String(res.headers['set-cookie']).split(';')[0];
  return { cookie, write: { cookie, origin: ORIGIN, 'x-csrf-token': res.json().csrfToken as string } };
}

for (const engine of ENGINES) {
  describe(`passkeys (${engine})`, () => {
    const shared = sharedTestApp(engine, { env: { STAFF_REQUIRE_PASSKEY: 'true' } });

    test('a passkey signs its person in alone; its challenge is single use; the sign-in is recorded on the passkey', async (t) => {
      const { app, storage } = await shared(t);
      const id = await person(storage, 'clerk');
      const key = await withPasskey(storage, id);
      const body = assertion(key.credentialId, key.privateKey, await signInOptions(app), 7);
      const res = await app.inject({ method: 'POST', url: '/v1/sessions/passkey', headers: { origin: ORIGIN }, payload: body });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().staff.id, id);
      assert.match(String(res.headers['set-cookie']), /^petstore_session=pss_[\w-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
      const cookie = String(res.headers['set-cookie']).split(';')[0];
      const me = await app.inject({ method: 'GET', url: '/v1/sessions/current', headers: { cookie } });
      assert.equal(me.json().staff.email, 'clerk@shop.example');
      const [passkey] = await storage.staff.passkeys(id);
      assert.equal(passkey.counter, 7);
      assert.notEqual(passkey.lastUsedAt, null);

      const again = await app.inject({ method: 'POST', url: '/v1/sessions/passkey', headers: { origin: ORIGIN }, payload: body });
      assertError(again, 401, 'unauthorized', /challenge is unknown, used already or expired/);
    });

    test('refused with 401 unauthorized: a challenge never issued, an unknown passkey, a signature by another key, another origin', async (t) => {
      const { app, storage } = await shared(t);
      const viewer = await person(storage, 'viewer');
      const key = await withPasskey(storage, viewer);
      const post = (payload: object, origin = ORIGIN) => app.inject({ method: 'POST', url: '/v1/sessions/passkey', headers: { origin }, payload });

      assertError(await post(assertion(key.credentialId, key.privateKey, randomBytes(32).toString('base64url'))), 401, 'unauthorized', /challenge/);
      const stranger = authenticator();
      assertError(await post(assertion(stranger.credentialId, stranger.privateKey, await signInOptions(app))), 401, 'unauthorized', /not registered/);
      assertError(await post(assertion(key.credentialId, stranger.privateKey, await signInOptions(app))), 401, 'unauthorized', /signature/i);
      assertError(await post(assertion(key.credentialId, key.privateKey, await signInOptions(app)), 'https://evil.example'), 403, 'csrf_failed');
      assertError(await post({ id: key.credentialId }), 400, 'validation_failed');
      assert.equal((await storage.staff.passkeys(viewer))[0].lastUsedAt, null);
    });

    test('registration: an unverifiable response, a reused or a sign-in challenge → 400 passkey_refused; an API key → 403', async (t) => {
      const { app, storage, auth } = await shared(t);
      await person(storage, 'clerk');
      const { write } = await signIn(app, 'clerk@shop.example');
      const begin = async () => {
        const res = await app.inject({ method: 'POST', url: '/v1/account/passkeys/options', headers: write });
        assert.equal(res.statusCode, 200, res.body);
        const options = res.json();
        assert.deepEqual(
          [options.rp.id, options.authenticatorSelection.residentKey, options.authenticatorSelection.userVerification],
          [RP_ID, 'required', 'required'],
        );
        return options.challenge as string;
      };
      const registration = (challenge: string) => ({
        id: 'AAAA',
        rawId: 'AAAA',
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          clientDataJSON: Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge, origin: ORIGIN })).toString('base64url'),
          attestationObject: 'oA',
        },
      });
      const add = (payload: object) => app.inject({ method: 'POST', url: '/v1/account/passkeys', headers: write, payload });
      const challenge = await begin();
      assertError(await add(registration(challenge)), 400, 'passkey_refused');
      assertError(await add(registration(challenge)), 400, 'passkey_refused', /challenge is unknown, used already or expired/);
      assertError(await add(registration(await signInOptions(app))), 400, 'passkey_refused', /challenge/);
      assertError(await app.inject({ method: 'POST', url: '/v1/account/passkeys/options', headers: auth }), 403, 'forbidden');
      assertError(await app.inject({ method: 'POST', url: '/v1/account/passkeys/options', headers: { cookie: write.cookie } }), 403, 'csrf_failed');
    });

    test("a person lists and removes their passkeys, not another's", async (t) => {
      const { app, storage } = await shared(t);
      const mine = await withPasskey(storage, await person(storage, 'clerk'));
      const theirs = await withPasskey(storage, await person(storage, 'viewer'));
      const { cookie, write } = await signIn(app, 'clerk@shop.example');
      const list = await app.inject({ method: 'GET', url: '/v1/account/passkeys', headers: { cookie } });
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        list.json().map((p: { id: number; transports: string[]; lastUsedAt: string | null }) => [p.id, p.transports, p.lastUsedAt]),
        [[mine.id, ['internal'], null]],
      );
      assertError(await app.inject({ method: 'DELETE', url: `/v1/account/passkeys/${theirs.id}`, headers: write }), 404, 'not_found');
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/account/passkeys/${mine.id}`, headers: write })).statusCode, 204);
      assert.deepEqual((await app.inject({ method: 'GET', url: '/v1/account/passkeys', headers: { cookie } })).json(), []);
      const gone = assertion(mine.credentialId, mine.privateKey, await signInOptions(app));
      assertError(
        await app.inject({ method: 'POST', url: '/v1/sessions/passkey', headers: { origin: ORIGIN }, payload: gone }),
        401,
        'unauthorized',
        /not registered/,
      );
    });

    test('storage: a challenge is taken once, by its person only; an expired one is refused and deleted when another is issued; a credential id is registered once', async (t) => {
      const { app, storage } = await shared(t);
      const clerk = await person(storage, 'clerk');
      const now = new Date();
      const later = new Date(now.getTime() + 60_000);
      await storage.transaction((tx) => tx.staff.saveChallenge('challenge-for-the-clerk', clerk, later, now));
      assert.equal(await storage.transaction((tx) => tx.staff.takeChallenge('challenge-for-the-clerk', 0)), undefined, "not a sign-in's");
      assert.equal(Date.parse((await storage.transaction((tx) => tx.staff.takeChallenge('challenge-for-the-clerk', clerk)))!), later.getTime());
      assert.equal(await storage.transaction((tx) => tx.staff.takeChallenge('challenge-for-the-clerk', clerk)), undefined, 'taken already');

      // Expired: refused by the sign-in, and gone once another challenge is issued.
      const key = await withPasskey(storage, clerk);
      const expired = randomBytes(32).toString('base64url');
      await storage.transaction((tx) => tx.staff.saveChallenge(expired, 0, new Date(now.getTime() - 1), new Date(now.getTime() - 300_000)));
      const stale = assertion(key.credentialId, key.privateKey, expired);
      assertError(
        await app.inject({ method: 'POST', url: '/v1/sessions/passkey', headers: { origin: ORIGIN }, payload: stale }),
        401,
        'unauthorized',
        /expired/,
      );
      await storage.transaction((tx) => tx.staff.saveChallenge(expired, 0, new Date(now.getTime() - 1), now));
      await signInOptions(app);
      assert.equal(await storage.transaction((tx) => tx.staff.takeChallenge(expired, 0)), undefined, 'deleted when another was issued');

      const again = { staffId: clerk, credentialId: key.credentialId, publicKey: key.cose, counter: 0, transports: [] };
      assert.equal(await storage.transaction((tx) => tx.staff.addPasskey(again, now)), undefined);
      assert.equal(await storage.transaction((tx) => tx.staff.removePasskey(clerk + 1, key.id)), false, "not another person's");
      assert.deepEqual((await storage.staff.passkey(key.credentialId))?.transports, ['internal']);
    });

    test('STAFF_REQUIRE_PASSKEY: an owner or manager with a passkey is refused a password sign-in (403 passkey_required); without one, or a clerk, is not', async (t) => {
      const { app, storage } = await shared(t);
      const owner = await person(storage, 'owner');
      const manager = await person(storage, 'manager');
      const clerk = await person(storage, 'clerk');
      await signIn(app, 'owner@shop.example');
      await withPasskey(storage, owner);
      await withPasskey(storage, manager);
      await withPasskey(storage, clerk);
      for (const email of ['owner@shop.example', 'manager@shop.example']) {
        const res = await app.inject({ method: 'POST', url: '/v1/sessions', payload: { email, password: PASSWORD } });
        assertError(res, 403, 'passkey_required');
      }
      const wrong = await app.inject({ method: 'POST', url: '/v1/sessions', payload: { email: 'owner@shop.example', password: 'not-the-password' } });
      assertError(wrong, 401, 'unauthorized');
      await signIn(app, 'clerk@shop.example');
    });
  });
}
