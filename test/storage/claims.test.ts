// Claims of a process that died are released at once (docs/deploy.md, "Takeover"): an
// Idempotency-Key in flight and the webhook attempts it leased, on every engine.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SCOPES } from '../../src/keys/key.types.ts';
import { createPet } from '../../src/pets/pet.service.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { claimAttempts } from '../../src/webhooks/webhook.deliveries.ts';
import { createWebhook } from '../../src/webhooks/webhook.service.ts';
import { petRecord } from '../helpers/pets.ts';
import { ENGINES, openSharedStorages } from '../helpers/engines.ts';

const T0 = new Date('2026-07-01T10:00:00.000Z');
const ID = { subject: 'key:1', operation: 'POST /v1/pets', key: 'k-1' };
const HOUR = 3_600_000;

/** A claim at T0 + 1 s: none of the records is old enough to be dead by age. */
const claim = (storage: Storage) =>
  storage.idempotency.claim(ID, 'f1', new Date(T0.getTime() + 1000), new Date(T0.getTime() - 24 * HOUR), new Date(T0.getTime() - HOUR));
/** Leases every due attempt for an hour. */
const lease = (storage: Storage, token: string) =>
  claimAttempts(storage, { now: T0, leaseUntil: new Date(T0.getTime() + HOUR), token, max: 100, perEndpoint: 100, perHost: 100 });

async function withWork(storage: Storage): Promise<void> {
  await createWebhook(
    storage,
    { url: 'https://hooks.example.com/a', events: null, description: null, secret: 'sealed' },
    { keyId: null, scopes: SCOPES, owner: true },
    16,
    {
      now: T0,
    },
  );
  for (let i = 0; i < 3; i++) await createPet(storage, petRecord({ name: `p${i}`, categoryId: 1, status: 'available' }), { now: T0 });
}

for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`${engine}: claims of an instance that is gone`, () => {
    test('another instance takes over its in-flight Idempotency-Key and its leases at once; its own write then finds its claim gone', async (t) => {
      const [a, b, c] = await openSharedStorages(t, engine, 3);
      await withWork(a);
      assert.equal(await claim(a), undefined, 'a claims the key');
      assert.equal((await lease(a, 'lease-a')).length, 3, 'a leases the three attempts');
      // a is alive: its claim stands, its attempts are held.
      assert.deepEqual(await claim(b), { fingerprint: 'f1', response: undefined });
      assert.equal((await lease(b, 'lease-b1')).length, 0);
      await a.close(); // its connections close, as they do when its process dies
      assert.equal(await claim(b), undefined, 'b takes the key over without waiting for its age limit');
      assert.equal((await lease(b, 'lease-b2')).length, 3, 'b leases the attempts without waiting for the lease to run out');
      // b's claim is b's: c, while b lives, is told the key is in flight.
      assert.deepEqual(await claim(c), { fingerprint: 'f1', response: undefined });
      const completed = await c.transaction((tx) => tx.idempotency.complete(ID, { status: 201, body: '{}', location: null }));
      assert.equal(completed, false, "only the holder completes a claim: c's write would roll back");
      assert.equal(await b.transaction((tx) => tx.idempotency.complete(ID, { status: 201, body: '{}', location: null })), true);
    });
  });
}

if (ENGINES.includes('sqlite')) {
  describe('sqlite: claims of a process that died', () => {
    test('the service starting on the file releases every in-flight claim and lease; a CLI command opening it does not', async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'petstore-claims-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const path = join(dir, 'petstore.db');
      const died = openSqlite({ path });
      await withWork(died);
      assert.equal(await claim(died), undefined);
      assert.equal((await lease(died, 'lease-died')).length, 3);
      await died.close(); // what is on disk when a process is killed: the claim and leases committed

      const cli = openSqlite({ path });
      assert.deepEqual(await claim(cli), { fingerprint: 'f1', response: undefined }, 'a CLI command beside the service releases nothing');
      await cli.close();

      const served = openSqlite({ path, serve: true });
      t.after(() => served.close());
      assert.equal(await claim(served), undefined, 'the key is free again');
      assert.equal((await lease(served, 'lease-served')).length, 3, 'the attempts are due again');
    });
  });
}
