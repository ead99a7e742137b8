// The activity log through the real app, on every engine: each write names its actor (a key, a
// person signed in) in its event and in the log, with what changed; the log's filters, paging and
// CSV; a customer's changes only for customers:read. The walk over every write operation of the
// document runs on SQLite only (the storage is the same SQL on both: test/storage/activity.test.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { ActivityEntry } from '../../src/activity/activity.schemas.ts';
import { hashToken } from '../../src/staff/staff.service.ts';
import { PasswordHasher } from '../../src/staff/staff.password.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { keyWithScopes, sharedTestApp } from '../helpers/app.ts';
import { assertion, authenticator, PASSKEY_ORIGIN, registration } from '../helpers/passkeys.ts';
import { ENGINES, feedSettled } from '../helpers/engines.ts';
import { assertError } from '../helpers/errors.ts';
import { solid } from '../helpers/images.ts';

const PASSWORD = 'tabby-ferret-lantern';
const ORIGIN = PASSKEY_ORIGIN;
const WALK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1:*' };
const MERGE = { 'content-type': 'application/merge-patch+json', 'if-match': '*' };
let passwordHash: Promise<string> | undefined;

/** An active person with PASSWORD, written straight to storage. */
async function person(storage: Storage, name: string, role: 'owner' | 'clerk', email: string): Promise<number> {
  passwordHash ??= new PasswordHasher().hash(PASSWORD);
  const hash = await passwordHash;
  return storage.transaction(async (tx) => {
    const p = await tx.staff.insert(
      { name, email, role, state: 'invited', invitation: { hash: hashToken(email), expiresAt: new Date(Date.now() + 3_600_000) } },
      new Date(),
    );
    await tx.staff.update(p!.id, { state: 'active', passwordHash: hash, invitation: null });
    return p!.id;
  });
}

async function signIn(app: FastifyInstance, email: string, password = PASSWORD): Promise<Record<string, string>> {
  const res = await app.inject({ method: 'POST', url: '/v1/sessions', payload: { email, password } });
  assert.equal(res.statusCode, 201, res.body);
  const cookie = String(res.headers['set-cookie']).split(';')[0];
  return { cookie, origin: ORIGIN, 'x-csrf-token': res.json().csrfToken };
}

const ok = (res: LightMyRequestResponse, what: string) => {
  assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${what}: ${res.statusCode} ${res.body}`);
  return res.statusCode === 204 ? undefined : res.json();
};

const keyId = async (app: FastifyInstance, headers: Record<string, string>): Promise<number> =>
  (await app.inject({ method: 'GET', url: '/v1/keys/me', headers })).json().id;

for (const engine of ENGINES) {
  describe(`activity log (${engine})`, () => {
    const shared = sharedTestApp(engine, { env: WALK_ENV });

    test('a price change names its key in the event and the log, with the change as [before, after]', async (t) => {
      const { app, auth, storage } = await shared(t);
      const me = await keyId(app, auth);
      const pet = ok(
        await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1, price: { amount: 1999 } } }),
        'create',
      );
      ok(await app.inject({ method: 'PATCH', url: `/v1/pets/${pet.id}`, headers: { ...auth, ...MERGE }, payload: { price: { amount: 2150 } } }), 'patch');
      await feedSettled(storage);

      const events = ok(await app.inject({ method: 'GET', url: `/v1/events?petId=${pet.id}`, headers: auth }), 'events');
      assert.deepEqual(
        events.map((e: { type: string }) => e.type),
        ['pet.created', 'pet.updated'],
      );
      assert.deepEqual(events[0].actor, { type: 'key', id: me, name: 'test' });
      assert.equal(events[0].changes, undefined, 'a creation carries no changes');
      assert.deepEqual(Object.keys(events[1].changes), ['price']);
      assert.deepEqual(
        events[1].changes.price.map((p: { amount: number }) => p.amount),
        [1999, 2150],
      );

      const log: ActivityEntry[] = ok(await app.inject({ method: 'GET', url: `/v1/activity?resource=pet:${pet.id}`, headers: auth }), 'activity');
      assert.deepEqual(
        log.map((e) => [e.type, e.resource, e.actor.name]),
        [
          ['pet.updated', `pet:${pet.id}`, 'test'],
          ['pet.created', `pet:${pet.id}`, 'test'],
        ],
        'newest first',
      );
      assert.deepEqual(log[0].changes, events[1].changes);
    });

    test('a person signed in is the actor of what their session writes; filters by actor, type and time; keyset pages; CSV', async (t) => {
      const { app, auth, storage } = await shared(t);
      const adaId = await person(storage, 'Ada Byrne', 'clerk', 'ada@shop.example');
      const ada = await signIn(app, 'ada@shop.example');
      const before = new Date().toISOString();
      for (const name of ['Rex', 'Nemo', '=HYPERLINK("x")'])
        ok(await app.inject({ method: 'POST', url: '/v1/pets', headers: ada, payload: { name, categoryId: 1 } }), name);
      ok(await app.inject({ method: 'POST', url: '/v1/categories', headers: auth, payload: { name: 'Ponies' } }), 'category');

      const mine = (query: string) => app.inject({ method: 'GET', url: `/v1/activity?actor=staff:${adaId}&type=pet.created&${query}`, headers: auth });
      const first = await mine('limit=2');
      const page1: ActivityEntry[] = ok(first, 'page 1');
      assert.deepEqual(
        page1.map((e) => e.actor),
        [
          { type: 'staff', id: adaId, name: 'Ada Byrne' },
          { type: 'staff', id: adaId, name: 'Ada Byrne' },
        ],
      );
      assert.ok(page1[0].id > page1[1].id, 'newest first');
      const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1];
      const page2: ActivityEntry[] = ok(await app.inject({ method: 'GET', url: next.slice(next.indexOf('/v1/')), headers: auth }), 'page 2');
      assert.equal(page2.length, 1);
      assert.ok(page2[0].id < page1[1].id);
      assert.equal((ok(await mine(`from=${encodeURIComponent(before)}`), 'from') as ActivityEntry[]).length, 3);
      assert.equal((ok(await mine(`to=${encodeURIComponent(before)}`), 'to') as ActivityEntry[]).length, 0);
      // The sign-in itself is the person's too.
      const sessions: ActivityEntry[] = ok(await app.inject({ method: 'GET', url: `/v1/activity?type=session.started`, headers: auth }), 'sign-in');
      assert.deepEqual(sessions[0].actor, { type: 'staff', id: adaId, name: 'Ada Byrne' });

      const csv = await app.inject({ method: 'GET', url: `/v1/activity.csv?actor=staff:${adaId}&type=pet.created`, headers: auth });
      assert.equal(csv.statusCode, 200);
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      const lines = csv.body.split('\r\n');
      assert.equal(lines[0], 'id,at,actor_type,actor_id,actor_name,type,resource,changes');
      assert.equal(lines.length, 5, 'header, three rows, and the last line end');
      assert.match(lines[1], new RegExp(`^\\d+,[^,]+,staff,${adaId},Ada Byrne,pet.created,pet:\\d+,$`));
      assertError(await app.inject({ method: 'GET', url: '/v1/activity?actor=ada', headers: auth }), 400, 'validation_failed');
    });

    test("a customer's changes are shown only to a reader holding customers:read; the log takes activity:read", async (t) => {
      const { app, auth, storage } = await shared(t);
      const c = ok(
        await app.inject({
          method: 'POST',
          url: '/v1/customers',
          headers: auth,
          payload: { name: 'Alex Doe', address: { line1: '1 Main St', city: 'Cork', postalCode: 'T12', country: 'IE' } },
        }),
        'customer',
      );
      ok(await app.inject({ method: 'PATCH', url: `/v1/customers/${c.id}`, headers: { ...auth, ...MERGE }, payload: { name: 'Alex Roe' } }), 'patch');
      const read = async (headers: { authorization: string }) =>
        (ok(await app.inject({ method: 'GET', url: `/v1/activity?resource=customer:${c.id}&type=customer.updated`, headers }), 'read') as ActivityEntry[])[0];
      assert.deepEqual((await read(auth)).changes, { name: ['Alex Doe', 'Alex Roe'] });
      await feedSettled(storage);
      const [event] = ok(await app.inject({ method: 'GET', url: '/v1/events?type=customer.updated', headers: auth }), 'events');
      assert.deepEqual([event.data, event.changes], [{ id: c.id }, undefined], 'no personal data travels in an event');
      const auditor = await keyWithScopes(storage, ['activity:read']);
      const seen = await read(auditor);
      assert.equal(seen.type, 'customer.updated');
      assert.equal(seen.changes, undefined, 'no personal data without customers:read');
      assert.doesNotMatch((await app.inject({ method: 'GET', url: `/v1/activity.csv?resource=customer:${c.id}`, headers: auditor })).body, /Alex/);
      assertError(await app.inject({ method: 'GET', url: '/v1/activity', headers: await keyWithScopes(storage, ['pets:read']) }), 403, 'insufficient_scope');
    });

    // One engine walks: the SQL is the same on both (test/storage/activity.test.ts runs it on each).
    if (engine === 'sqlite')
      test('the walk: each write of the document finds its actor in the activity log', async (t) => {
        const { app, auth, storage } = await shared(t);
        const owner = { type: 'key', id: await keyId(app, auth), name: 'test' };
        const walked = new Set<string>();
        let last = 0;
        /** Sends one write and finds, among the log's entries it added, one made by `actor`. */
        const write = async (operation: string, url: string, actor: object, options: { headers?: Record<string, string>; payload?: unknown } = {}) => {
          const [method] = operation.split(' ');
          const res = await app.inject({ method: method as 'POST', url: `/v1${url}`, headers: options.headers ?? auth, payload: options.payload as never });
          const body = ok(res, operation);
          const added = (await storage.activity.list({ limit: 50 })).filter((e) => e.id > last);
          assert.ok(
            added.some((e) => JSON.stringify(e.actor) === JSON.stringify(actor)),
            `${operation}: its actor ${JSON.stringify(actor)} in ${JSON.stringify(added)}`,
          );
          last = Math.max(last, ...added.map((e) => e.id));
          walked.add(operation);
          return body;
        };
        const json = { ...auth, 'content-type': 'application/json' };

        const category = await write('POST /categories', '/categories', owner, { payload: { name: 'Ponies' } });
        await write('PATCH /categories/{categoryId}', `/categories/${category.id}`, owner, { headers: { ...auth, ...MERGE }, payload: { name: 'Horses' } });
        const pets = [];
        for (const name of ['Rex', 'Nemo', 'Biscuit', 'Tabby']) pets.push(await write('POST /pets', '/pets', owner, { payload: { name, categoryId: 1 } }));
        await write('PATCH /pets/{petId}', `/pets/${pets[0].id}`, owner, { headers: { ...auth, ...MERGE }, payload: { name: 'Rexy' } });
        await write('POST /pets/bulk', '/pets/bulk', owner, { payload: { ids: [pets[0].id, pets[1].id], patch: { tags: ['calm'] } } });
        const photo = await write('POST /pets/{petId}/photos', `/pets/${pets[0].id}/photos`, owner, {
          headers: { ...auth, 'content-type': 'image/png' },
          payload: await solid('png'),
        });
        await write('DELETE /pets/{petId}/photos/{photoId}', `/pets/${pets[0].id}/photos/${photo.id}`, owner);
        const record = await write('POST /pets/{petId}/health', `/pets/${pets[0].id}/health`, owner, {
          payload: { kind: 'note', date: '2026-11-20', name: 'Check-up', givenBy: 'Dr. A. Jones' },
        });
        await write('POST /pets/{petId}/health/{recordId}/void', `/pets/${pets[0].id}/health/${record.id}/void`, owner, {
          payload: { reason: 'Wrong animal' },
        });
        await write('DELETE /pets/{petId}', `/pets/${pets[3].id}`, owner, { headers: { ...auth, 'if-match': '*' } });
        const stock = await write('POST /imports', '/imports', owner, {
          headers: { ...auth, 'content-type': 'application/x-ndjson' },
          payload: '{"name":"Pip","categoryId":1}\n',
        });
        await write('POST /imports/{importId}/apply', `/imports/${stock.id}/apply`, owner);

        const address = { line1: '1 Main St', city: 'Cork', postalCode: 'T12', country: 'IE' };
        const customers = [];
        for (const name of ['Alex Doe', 'Sam Roe', 'Kim Poe'])
          customers.push(await write('POST /customers', '/customers', owner, { payload: { name, address } }));
        await write('PATCH /customers/{customerId}', `/customers/${customers[0].id}`, owner, { headers: { ...auth, ...MERGE }, payload: { name: 'Alex Moe' } });
        await write('DELETE /customers/{customerId}', `/customers/${customers[1].id}`, owner, { headers: { ...auth, 'if-match': '*' } });
        await write('POST /customers/{customerId}/erase', `/customers/${customers[2].id}/erase`, owner);
        const until = new Date(Date.now() + 86_400_000).toISOString();
        const hold = await write('POST /pets/{petId}/holds', `/pets/${pets[0].id}/holds`, owner, { payload: { customerId: customers[0].id, until } });
        await write('POST /holds/{holdId}/cancel', `/holds/${hold.id}/cancel`, owner, { payload: { depositRefunded: false } });
        const hold2 = await write('POST /pets/{petId}/holds', `/pets/${pets[0].id}/holds`, owner, { payload: { customerId: customers[0].id, until } });
        await write('POST /holds/{holdId}/convert', `/holds/${hold2.id}/convert`, owner);
        const order = await write('POST /store/orders', '/store/orders', owner, { payload: { petId: pets[1].id } });
        await write('PATCH /store/orders/{orderId}', `/store/orders/${order.id}`, owner, {
          headers: { ...json, 'if-match': '*' },
          payload: { status: 'approved' },
        });

        const hook = await write('POST /webhooks', '/webhooks', owner, { payload: { url: 'http://127.0.0.1:9/hook', events: ['category.deleted'] } });
        await write('PATCH /webhooks/{webhookId}', `/webhooks/${hook.id}`, owner, { headers: json, payload: { description: 'the shop' } });
        await write('POST /webhooks/{webhookId}/rotate-secret', `/webhooks/${hook.id}/rotate-secret`, owner);
        await write('DELETE /categories/{categoryId}', `/categories/${category.id}`, owner);
        const [delivery] = (await app.inject({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, headers: auth })).json();
        await write('POST /webhooks/{webhookId}/deliveries/{deliveryId}/retry', `/webhooks/${hook.id}/deliveries/${delivery.id}/retry`, owner);
        await write('DELETE /webhooks/{webhookId}', `/webhooks/${hook.id}`, owner);
        const key = await write('POST /keys', '/keys', owner, { payload: { name: 'till', scopes: ['pets:read'] } });
        await write('DELETE /keys/{keyId}', `/keys/${key.id}`, owner);

        const invited = await write('POST /staff', '/staff', owner, { payload: { name: 'Ada Byrne', email: 'ada@shop.example', role: 'clerk' } });
        const ada = { type: 'staff', id: invited.staff.id, name: 'Ada Byrne' };
        await write('POST /invitations/accept', '/invitations/accept', ada, { headers: {}, payload: { token: invited.invitation.token, password: PASSWORD } });
        await write('PATCH /staff/{staffId}', `/staff/${ada.id}`, owner, { headers: json, payload: { role: 'viewer' } });
        await write('POST /sessions', '/sessions', ada, { headers: {}, payload: { email: 'ada@shop.example', password: PASSWORD } });
        const other = await signIn(app, 'ada@shop.example');
        const session = await signIn(app, 'ada@shop.example');
        const otherId = (await app.inject({ method: 'GET', url: '/v1/sessions/current', headers: other })).json().session.id;
        await write('DELETE /sessions/{sessionId}', `/sessions/${otherId}`, ada, { headers: session });
        await write('DELETE /sessions', '/sessions', ada, { headers: session });
        await write('POST /account/password', '/account/password', ada, {
          headers: { ...session, 'content-type': 'application/json' },
          payload: { currentPassword: PASSWORD, newPassword: 'otter-quilt-harbour' },
        });
        const passkey = authenticator();
        const registering = ok(await app.inject({ method: 'POST', url: '/v1/account/passkeys/options', headers: session }), 'passkey options');
        const added = await write('POST /account/passkeys', '/account/passkeys', ada, {
          headers: session,
          payload: registration(passkey, registering.challenge),
        });
        const signingIn = ok(await app.inject({ method: 'POST', url: '/v1/sessions/passkey/options', headers: { origin: ORIGIN } }), 'sign-in options');
        await write('POST /sessions/passkey', '/sessions/passkey', ada, {
          headers: { origin: ORIGIN },
          payload: assertion(passkey.credentialId, passkey.privateKey, signingIn.challenge, 1),
        });
        await write('DELETE /account/passkeys/{passkeyId}', `/account/passkeys/${added.id}`, ada, { headers: session });
        await write('DELETE /sessions/current', '/sessions/current', ada, { headers: session });
        await write('POST /staff/{staffId}/reset', `/staff/${ada.id}/reset`, owner);
        await write('POST /staff/{staffId}/deactivate', `/staff/${ada.id}/deactivate`, owner);

        assert.deepEqual(
          [...walked].sort(),
          writeOperations()
            .filter((op) => !CHALLENGES.includes(op))
            .sort(),
          'every write operation of the document is walked',
        );
      });
  });
}

/** Every write operation of the document, as its method and path template. */
/** POSTs that only hand out a passkey challenge (single use, 5 min): nothing a person did, not logged (docs/api.md, "Activity"). */
const CHALLENGES = ['POST /account/passkeys/options', 'POST /sessions/passkey/options'];

function writeOperations(): string[] {
  const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops)
      .filter((m) => ['post', 'put', 'patch', 'delete'].includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}
