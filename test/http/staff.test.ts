// Staff accounts and sessions through the real app, on every engine: invitations (one-time,
// hashed, password policy), sign-in (one answer, throttled), the cookie's attributes, the CSRF rule,
// role scopes through the same checks as keys, deactivation and sign-out ending sessions at once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { hashToken } from '../../src/staff/staff.service.ts';
import { PasswordHasher } from '../../src/staff/staff.password.ts';
import { ROLE_SCOPES, ROLES, type Role } from '../../src/staff/staff.roles.ts';
import { SCOPES, type Scope } from '../../src/keys/key.types.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { buildTestApp, fixedClock, logCapture, sharedTestApp } from '../helpers/app.ts';
import { loadConfig } from '../../src/config.ts';
import { loggerOptions } from '../../src/logger.ts';
import { ENGINES } from '../helpers/engines.ts';
import { assertError } from '../helpers/errors.ts';

const PASSWORD = 'tabby-ferret-lantern';
// inject() sends Host: localhost:80, plain HTTP to a loopback host: the cookie is not Secure there.
const ORIGIN = 'http://localhost:80';
const hasher = new PasswordHasher();
let passwordHash: Promise<string> | undefined;

/** An active person with PASSWORD, written straight to storage (one hash per file, not one per person). */
async function person(storage: Storage, role: Role, email = `${role}@shop.example`): Promise<number> {
  passwordHash ??= hasher.hash(PASSWORD);
  const hash = await passwordHash;
  return storage.transaction(async (tx) => {
    const p = await tx.staff.insert(
      { name: role, email, role, state: 'invited', invitation: { hash: hashToken(email), expiresAt: new Date(Date.now() + 3_600_000) } },
      new Date(),
    );
    await tx.staff.update(p!.id, { state: 'active', passwordHash: hash, invitation: null });
    return p!.id;
  });
}

interface SignedIn {
  readonly cookie: string;
  readonly csrf: string;
  /** Headers of an unsafe request from the console. */
  readonly write: Record<string, string>;
}

async function signIn(app: FastifyInstance, email: string, password = PASSWORD): Promise<SignedIn> {
  const res = await app.inject({ method: 'POST', url: '/v1/sessions', payload: { email, password } });
  assert.equal(res.statusCode, 201, res.body);
  const cookie = String(res.headers['set-cookie']).split(';')[0];
  const csrf = res.json().csrfToken as string;
  return { cookie, csrf, write: { cookie, origin: ORIGIN, 'x-csrf-token': csrf } };
}

const pet = (app: FastifyInstance, headers: Record<string, string>): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'POST', url: '/v1/pets', headers, payload: { name: 'Rex', categoryId: 1 } });

for (const engine of ENGINES) {
  describe(`staff and sessions (${engine})`, () => {
    const shared = sharedTestApp(engine);

    test('an invitation link sets a password once: too short and common passwords refused, a used link refused', async (t) => {
      const { app, auth } = await shared(t);
      const invited = await app.inject({ method: 'POST', url: '/v1/staff', headers: auth, payload: { name: 'Ada', email: 'Ada@Shop.example', role: 'clerk' } });
      assert.equal(invited.statusCode, 201, invited.body);
      const { staff, invitation } = invited.json();
      assert.deepEqual([staff.email, staff.state, staff.lastSignInAt], ['ada@shop.example', 'invited', null]);
      assert.equal(invited.headers.location, `/v1/staff/${staff.id}`);
      assert.match(invitation.url, new RegExp(`^${ORIGIN}/console/#/welcome\\?token=psi_`));
      assert.ok(invitation.url.endsWith(invitation.token));
      assert.equal(Date.parse(invitation.expiresAt) - Date.now() > 71 * 3_600_000, true);
      const again = await app.inject({ method: 'POST', url: '/v1/staff', headers: auth, payload: { name: 'Ada', email: 'ada@shop.example', role: 'viewer' } });
      assertError(again, 409, 'staff_exists');

      const accept = (password: string, token = invitation.token) =>
        app.inject({ method: 'POST', url: '/v1/invitations/accept', payload: { token, password } });
      const short = await accept('eleven char');
      assertError(short, 400, 'validation_failed');
      assert.equal(short.json().errors[0].rule, 'minLength');
      const common = await accept('Password1234');
      assertError(common, 400, 'validation_failed');
      assert.equal(common.json().errors[0].rule, 'commonPassword');
      assertError(await accept(PASSWORD, 'psi_unknown'), 400, 'invalid_invitation');
      const ok = await accept(PASSWORD);
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().state, 'active');
      assertError(await accept(PASSWORD), 400, 'invalid_invitation');
    });

    test('sign-in: one answer for an unknown address and a wrong password; the cookie and the CSRF token; scopes of the role', async (t) => {
      const { app, storage } = await shared(t);
      await person(storage, 'clerk');
      const wrong = await app.inject({ method: 'POST', url: '/v1/sessions', payload: { email: 'clerk@shop.example', password: 'not-the-password' } });
      const unknown = await app.inject({ method: 'POST', url: '/v1/sessions', payload: { email: 'nobody@shop.example', password: PASSWORD } });
      assertError(wrong, 401, 'unauthorized');
      assert.equal(unknown.body, wrong.body);
      assert.equal(wrong.headers['set-cookie'], undefined);

      const res = await app.inject({ method: 'POST', url: '/v1/sessions', payload: { email: 'CLERK@shop.example', password: PASSWORD } });
      assert.equal(res.statusCode, 201, res.body);
      const setCookie = String(res.headers['set-cookie']);
      assert.match(setCookie, /^petstore_session=pss_[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
      const body = res.json();
      assert.deepEqual(body.scopes, [
        'pets:read',
        'pets:write',
        'health:read',
        'health:write',
        'orders:read',
        'orders:write',
        'customers:read',
        'customers:write',
      ]);
      assert.equal(body.staff.role, 'clerk');
      assert.notEqual(body.staff.lastSignInAt, null);
      assert.equal(body.session.current, true);
      const cookie = setCookie.split(';')[0];

      // Safe requests need the cookie only; the role's scopes are checked as a key's are.
      assert.equal((await app.inject({ method: 'GET', url: '/v1/pets', headers: { cookie } })).statusCode, 200);
      assertError(await app.inject({ method: 'GET', url: '/v1/staff', headers: { cookie } }), 403, 'insufficient_scope');
      const current = await app.inject({ method: 'GET', url: '/v1/sessions/current', headers: { cookie } });
      assert.equal(current.json().csrfToken, body.csrfToken);

      // Unsafe requests need the service's Origin and the session's CSRF token.
      assertError(await pet(app, { cookie }), 403, 'csrf_failed');
      assertError(await pet(app, { cookie, origin: ORIGIN }), 403, 'csrf_failed');
      assertError(await pet(app, { cookie, 'x-csrf-token': body.csrfToken }), 403, 'csrf_failed');
      assertError(await pet(app, { cookie, origin: 'https://evil.example', 'x-csrf-token': body.csrfToken }), 403, 'csrf_failed');
      assertError(await pet(app, { cookie, origin: ORIGIN, 'x-csrf-token': `${body.csrfToken.slice(0, -1)}x` }), 403, 'csrf_failed');
      assert.equal((await pet(app, { cookie, origin: ORIGIN, 'x-csrf-token': body.csrfToken })).statusCode, 201);
      // A cookie is never read as a bearer key, and an unknown session is 401.
      assertError(await app.inject({ method: 'GET', url: '/v1/pets', headers: { cookie: 'petstore_session=pst_notakey' } }), 401, 'unauthorized');
      // Another site's form cannot sign anyone in.
      const crossSite = await app.inject({
        method: 'POST',
        url: '/v1/sessions',
        headers: { origin: 'https://evil.example' },
        payload: { email: 'clerk@shop.example', password: PASSWORD },
      });
      assertError(crossSite, 403, 'csrf_failed');
    });

    test('over HTTPS (or to another host) the cookie is Secure and __Host- prefixed, and only that name is read', async (t) => {
      const { app, storage } = await shared(t);
      await person(storage, 'viewer');
      const headers = { host: 'shop.example', 'x-forwarded-proto': 'https' };
      const res = await app.inject({ method: 'POST', url: '/v1/sessions', headers, payload: { email: 'viewer@shop.example', password: PASSWORD } });
      assert.equal(res.statusCode, 201, res.body);
      const setCookie = String(res.headers['set-cookie']);
      assert.match(setCookie, /^__Host-petstore_session=pss_[^;]+; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict; Secure$/);
      const token = setCookie.split(';')[0].split('=')[1];
      assert.equal(
        (await app.inject({ method: 'GET', url: '/v1/pets', headers: { host: 'shop.example', cookie: `__Host-petstore_session=${token}` } })).statusCode,
        200,
      );
      assertError(
        await app.inject({ method: 'GET', url: '/v1/pets', headers: { host: 'shop.example', cookie: `petstore_session=${token}` } }),
        401,
        'unauthorized',
      );
    });

    test('deactivating a person ends their open session at once; signing out ends the session', async (t) => {
      const { app, storage, auth } = await shared(t);
      const viewerId = await person(storage, 'viewer');
      await person(storage, 'owner');
      const viewer = await signIn(app, 'viewer@shop.example');
      const owner = await signIn(app, 'owner@shop.example');
      const refused = await pet(app, viewer.write);
      assertError(refused, 403, 'insufficient_scope');
      assert.equal(refused.json().message, 'your role lacks the scope pets:write');
      const done = await app.inject({ method: 'POST', url: `/v1/staff/${viewerId}/deactivate`, headers: owner.write });
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(done.json().state, 'deactivated');
      assertError(await app.inject({ method: 'GET', url: '/v1/pets', headers: { cookie: viewer.cookie } }), 401, 'unauthorized');
      assertError(
        await app.inject({ method: 'POST', url: '/v1/sessions', payload: { email: 'viewer@shop.example', password: PASSWORD } }),
        401,
        'unauthorized',
      );

      const out = await app.inject({ method: 'DELETE', url: '/v1/sessions/current', headers: owner.write });
      assert.equal(out.statusCode, 204);
      assert.match(String(out.headers['set-cookie']), /^petstore_session=; Path=\/; Max-Age=0;/);
      assertError(await app.inject({ method: 'GET', url: '/v1/pets', headers: { cookie: owner.cookie } }), 401, 'unauthorized');
      // Session operations are for people, not keys.
      assertError(await app.inject({ method: 'GET', url: '/v1/sessions', headers: auth }), 403, 'forbidden');
    });

    test('a manager manages clerks and viewers only; the last active owner stays; only an owner resets', async (t) => {
      const { app, storage, auth } = await shared(t);
      const ownerId = await person(storage, 'owner');
      const clerkId = await person(storage, 'clerk');
      await person(storage, 'manager');
      const manager = await signIn(app, 'manager@shop.example');
      const invite = (role: string) =>
        app.inject({ method: 'POST', url: '/v1/staff', headers: manager.write, payload: { name: 'New', email: `new-${role}@shop.example`, role } });
      assertError(await invite('owner'), 403, 'insufficient_scope');
      assertError(await invite('manager'), 403, 'insufficient_scope');
      assert.equal((await invite('viewer')).statusCode, 201);
      const promote = await app.inject({ method: 'PATCH', url: `/v1/staff/${clerkId}`, headers: manager.write, payload: { role: 'manager' } });
      assertError(promote, 403, 'insufficient_scope');
      const demote = await app.inject({ method: 'PATCH', url: `/v1/staff/${clerkId}`, headers: manager.write, payload: { role: 'viewer' } });
      assert.equal(demote.json().role, 'viewer');
      assertError(await app.inject({ method: 'POST', url: `/v1/staff/${clerkId}/reset`, headers: manager.write }), 403, 'insufficient_scope');
      assertError(await app.inject({ method: 'GET', url: '/v1/keys', headers: { cookie: manager.cookie } }), 403, 'insufficient_scope');

      // With an owner key: the last active owner can be neither demoted nor deactivated.
      assertError(await app.inject({ method: 'PATCH', url: `/v1/staff/${ownerId}`, headers: auth, payload: { role: 'manager' } }), 409, 'last_owner');
      assertError(await app.inject({ method: 'POST', url: `/v1/staff/${ownerId}/deactivate`, headers: auth }), 409, 'last_owner');

      // A reset ends the person's password and sessions and makes a new one-time link.
      const clerk = await signIn(app, 'clerk@shop.example');
      const reset = await app.inject({ method: 'POST', url: `/v1/staff/${clerkId}/reset`, headers: auth });
      assert.equal(reset.statusCode, 200, reset.body);
      assertError(await app.inject({ method: 'GET', url: '/v1/pets', headers: { cookie: clerk.cookie } }), 401, 'unauthorized');
      const token = reset.json().invitation.token;
      const accepted = await app.inject({ method: 'POST', url: '/v1/invitations/accept', payload: { token, password: 'a-brand-new-password' } });
      assert.equal(accepted.statusCode, 200, accepted.body);
      await signIn(app, 'clerk@shop.example', 'a-brand-new-password');
    });

    test('sessions: listed, the others ended; a password change needs the current one and ends the others', async (t) => {
      const { app, storage } = await shared(t);
      await person(storage, 'clerk');
      const first = await signIn(app, 'clerk@shop.example');
      const second = await signIn(app, 'clerk@shop.example');
      const list = await app.inject({ method: 'GET', url: '/v1/sessions', headers: { cookie: second.cookie } });
      assert.deepEqual(
        list.json().map((s: { current: boolean }) => s.current),
        [true, false],
      );
      assert.equal((await app.inject({ method: 'DELETE', url: '/v1/sessions', headers: second.write })).statusCode, 204);
      assertError(await app.inject({ method: 'GET', url: '/v1/pets', headers: { cookie: first.cookie } }), 401, 'unauthorized');
      assert.equal((await app.inject({ method: 'GET', url: '/v1/sessions', headers: { cookie: second.cookie } })).json().length, 1);

      const change = (currentPassword: string, newPassword: string) =>
        app.inject({ method: 'POST', url: '/v1/account/password', headers: second.write, payload: { currentPassword, newPassword } });
      assertError(await change('not-the-password', 'another-long-password'), 403, 'forbidden');
      assertError(await change(PASSWORD, 'qwertyuiopasdfgh'), 400, 'validation_failed');
      assert.equal((await change(PASSWORD, 'another-long-password')).statusCode, 204);
      await signIn(app, 'clerk@shop.example', 'another-long-password');
    });

    test('the role table is enforced: each role reaches exactly the operations of its scopes, through the same checks as a key', async (t) => {
      const { app, storage } = await shared(t);
      // One operation per scope; the scope check comes before anything else looks at the request.
      const OPS: readonly [Scope, string, string, object?][] = [
        ['pets:read', 'GET', '/v1/pets'],
        ['pets:write', 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 }],
        ['health:read', 'GET', '/v1/health/due?before=2030-01-01'],
        ['health:write', 'POST', '/v1/pets/999999/health', {}],
        ['orders:read', 'GET', '/v1/store/orders'],
        ['orders:write', 'POST', '/v1/store/orders', {}],
        ['customers:read', 'GET', '/v1/customers'],
        ['customers:write', 'POST', '/v1/customers', {}],
        ['categories:write', 'POST', '/v1/categories', {}],
        ['events:read', 'GET', '/v1/events'],
        ['keys:admin', 'GET', '/v1/keys'],
        ['webhooks:admin', 'GET', '/v1/webhooks'],
        ['staff:read', 'GET', '/v1/staff'],
        ['staff:admin', 'PATCH', '/v1/staff/999999', { role: 'viewer' }],
        ['activity:read', 'GET', '/v1/activity'],
      ];
      assert.deepEqual(OPS.map(([scope]) => scope).sort(), [...SCOPES].sort(), 'every scope family is tried');
      for (const role of ROLES) {
        await person(storage, role);
        const me = await signIn(app, `${role}@shop.example`);
        for (const [scope, method, url, payload] of OPS) {
          const res = await app.inject({ method: method as 'GET', url, headers: method === 'GET' ? { cookie: me.cookie } : me.write, payload });
          const refused = res.statusCode === 403 && res.json().code === 'insufficient_scope';
          assert.equal(refused, !ROLE_SCOPES[role].includes(scope), `${role} ${method} ${url}: ${res.statusCode} ${res.body}`);
        }
      }
    });

    test('failed sign-ins are throttled per account and address (429 with Retry-After within the minute)', async (t) => {
      const { app, storage } = await shared(t);
      await person(storage, 'viewer');
      const attempt = (password: string) => app.inject({ method: 'POST', url: '/v1/sessions', payload: { email: 'viewer@shop.example', password } });
      for (let i = 0; i < 5; i++) assertError(await attempt(`wrong-password-${i}`), 401, 'unauthorized');
      const refused = await attempt('wrong-password-5');
      assertError(refused, 429, 'rate_limited');
      assert.ok(Number(refused.headers['retry-after']) <= 60);
      // Refused before the password is looked at, the right one included, until the window ends.
      assertError(await attempt(PASSWORD), 429, 'rate_limited');
    });
  });
}

describe('session lifetime and log (the clock driven, sqlite)', () => {
  test('a session ends after SESSION_IDLE_MINUTES without a request, and SESSION_MAX_HOURS after sign-in however active; sign-ins, failures and sign-outs are logged without password, address typed or cookie', async (t) => {
    const clock = fixedClock(new Date('2026-11-28T08:00:00.000Z'));
    const logs = logCapture();
    const env = { SESSION_IDLE_MINUTES: '30', SESSION_MAX_HOURS: '2' };
    const { app, storage } = await buildTestApp(t, { clock, env, logger: { ...(loggerOptions(loadConfig(env)) as object), stream: logs.stream } });
    await person(storage, 'viewer');
    const minutes = (n: number) => clock.set(new Date(clock.now().getTime() + n * 60_000));
    const status = async (cookie: string) => (await app.inject({ method: 'GET', url: '/v1/pets', headers: { cookie } })).statusCode;

    const idle = await signIn(app, 'viewer@shop.example');
    assert.match(String((await app.inject({ method: 'GET', url: '/v1/sessions', headers: { cookie: idle.cookie } })).json()[0].expiresAt), /T10:00:00/);
    minutes(29);
    assert.equal(await status(idle.cookie), 200, 'a request within the idle time keeps it open');
    minutes(29);
    assert.equal(await status(idle.cookie), 200);
    minutes(30);
    assert.equal(await status(idle.cookie), 401, 'idle for 30 minutes');

    const busy = await signIn(app, 'viewer@shop.example');
    for (let i = 0; i < 4; i++) {
      minutes(29);
      assert.equal(await status(busy.cookie), 200);
    }
    minutes(5);
    assert.equal(await status(busy.cookie), 401, '2 hours after sign-in, however active');

    const last = await signIn(app, 'viewer@shop.example');
    await app.inject({ method: 'POST', url: '/v1/sessions', payload: { email: 'viewer@shop.example', password: 'a-wrong-password-typed' } });
    await app.inject({ method: 'POST', url: '/v1/sessions', payload: { email: 'typo@shop.example', password: 'another-wrong-one' } });
    await app.inject({ method: 'DELETE', url: '/v1/sessions/current', headers: last.write });
    const sessions = logs.lines().filter((l) => l.component === 'sessions');
    assert.deepEqual(
      sessions.map((l) => [l.outcome, typeof l.staffId]),
      [
        ['signed_in', 'number'],
        ['signed_in', 'number'],
        ['signed_in', 'number'],
        ['failed', 'number'],
        ['failed', 'object'],
        ['signed_out', 'number'],
      ],
    );
    const text = logs.text();
    for (const secret of [PASSWORD, 'a-wrong-password-typed', 'another-wrong-one', 'typo@shop.example', last.cookie.split('=')[1]!, last.csrf])
      assert.ok(!text.includes(secret), `the log holds no ${secret.slice(0, 6)}…`);
  });
});
