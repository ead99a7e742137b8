// Standard Webhooks 1.0, checked both ways against the specification's reference library.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { Petstore, signWebhook, verifyWebhook, WebhookVerificationError } from '../src/index.ts';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const EVENT = { id: 'evt_1', type: 'pet.created', createdAt: '2026-01-01T00:00:00.000Z', data: { id: 1, name: 'Rëx 🐕', categoryId: 1, status: 'available' } };
const BODY = JSON.stringify(EVENT);

describe('interoperability with the standardwebhooks reference library', () => {
  test('signed by standardwebhooks → verified by Petstore.webhooks.verify (string or bytes, record or Headers)', async () => {
    const secret = newSecret();
    const now = new Date();
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('evt_1', now, BODY),
    };
    assert.deepEqual(await Petstore.webhooks.verify(BODY, headers, secret), EVENT);
    assert.deepEqual(await Petstore.webhooks.verify(new TextEncoder().encode(BODY), new Headers(headers), secret), EVENT);
    const upper = { 'Webhook-Id': headers['webhook-id'], 'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'], 'Webhook-Signature': headers['webhook-signature'] };
    assert.deepEqual(await verifyWebhook(BODY, upper, secret), EVENT, 'header names in any case');
  });

  test('signed by signWebhook → verified by standardwebhooks, with the very same signature', async () => {
    const secret = newSecret();
    const timestamp = new Date();
    const headers = await Petstore.webhooks.sign(BODY, { id: 'evt_2', timestamp }, secret);
    assert.deepEqual(new Webhook(secret).verify(BODY, headers), EVENT);
    assert.equal(headers['webhook-signature'], new Webhook(secret).sign('evt_2', timestamp, BODY));
    assert.equal(headers['webhook-timestamp'], String(Math.floor(timestamp.getTime() / 1000)));
  });

  test('a secret without the whsec_ prefix is the same secret', async () => {
    const secret = newSecret();
    const headers = await signWebhook(BODY, { id: 'evt_3' }, secret.slice('whsec_'.length));
    assert.deepEqual(new Webhook(secret).verify(BODY, headers), EVENT);
  });
});

describe('verification', () => {
  test('during a rotation any of several space-separated signatures may match; other versions are ignored', async () => {
    const [old, fresh] = [newSecret(), newSecret()];
    const signed = await signWebhook(BODY, { id: 'evt_4' }, old);
    const second = await signWebhook(BODY, { id: 'evt_4', timestamp: new Date(Number(signed['webhook-timestamp']) * 1000) }, fresh);
    const both = { ...signed, 'webhook-signature': `v1a,AAAA ${signed['webhook-signature']} ${second['webhook-signature']}` };
    assert.deepEqual(await verifyWebhook(BODY, both, old), EVENT);
    assert.deepEqual(await verifyWebhook(BODY, both, fresh), EVENT);
    const onlyOther = { ...signed, 'webhook-signature': signed['webhook-signature'].replace(/^v1,/, 'v2,') };
    await assert.rejects(verifyWebhook(BODY, onlyOther, old), WebhookVerificationError);
  });

  test('an altered body, id or timestamp, or another secret, is refused', async () => {
    const secret = newSecret();
    const headers = await signWebhook(BODY, { id: 'evt_5' }, secret);
    await verifyWebhook(BODY, headers, secret);
    await assert.rejects(verifyWebhook(BODY.replace('Rëx', 'Max'), headers, secret), /no webhook-signature matches/);
    await assert.rejects(verifyWebhook(BODY, { ...headers, 'webhook-id': 'evt_6' }, secret), /no webhook-signature matches/);
    await assert.rejects(
      verifyWebhook(BODY, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) }, secret),
      /no webhook-signature matches/,
    );
    await assert.rejects(verifyWebhook(BODY, headers, newSecret()), WebhookVerificationError);
  });

  test('the timestamp must be within five minutes either way', async () => {
    const secret = newSecret();
    const now = new Date('2030-01-01T12:00:00Z');
    const at = (seconds: number) => signWebhook(BODY, { id: 'evt_7', timestamp: new Date(now.getTime() + seconds * 1000) }, secret);
    assert.deepEqual(await verifyWebhook(BODY, await at(-299), secret, { now }), EVENT);
    assert.deepEqual(await verifyWebhook(BODY, await at(299), secret, { now }), EVENT);
    await assert.rejects(verifyWebhook(BODY, await at(-301), secret, { now }), /more than five minutes off/);
    await assert.rejects(verifyWebhook(BODY, await at(301), secret, { now }), /more than five minutes off/);
    const real = await signWebhook(BODY, { id: 'evt_7' }, secret);
    await assert.rejects(verifyWebhook(BODY, { ...real, 'webhook-timestamp': '1e9' }, secret), /not Unix seconds/);
  });

  test('missing headers, a malformed secret or a body that is not an event object are refused', async () => {
    const secret = newSecret();
    const headers = await signWebhook(BODY, { id: 'evt_8' }, secret);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _, ...rest } = headers;
      await assert.rejects(verifyWebhook(BODY, rest, secret), /missing webhook-id, webhook-timestamp or webhook-signature/);
    }
    await assert.rejects(verifyWebhook(BODY, headers, 'whsec_not*base64'), /not whsec_ followed by base64/);
    await assert.rejects(verifyWebhook(BODY, headers, 'whsec_'), /empty/);
    for (const body of ['not json', '[1]', 'null']) {
      await assert.rejects(verifyWebhook(body, await signWebhook(body, { id: 'evt_9' }, secret), secret), WebhookVerificationError, body);
    }
  });

  test('Petstore.webhooks is the exported verify and sign, and so is petstore.webhooks; endpoints are petstore.webhookEndpoints', () => {
    assert.equal(Petstore.webhooks.verify, verifyWebhook);
    assert.equal(Petstore.webhooks.sign, signWebhook);
    const petstore = new Petstore({ baseUrl: 'http://petstore.test/v1', apiKey: 'k' });
    assert.equal(petstore.webhooks, Petstore.webhooks, 'one name, one meaning: on the class and on an instance');
    assert.equal(typeof petstore.webhookEndpoints.create, 'function');
    assert.ok(!('create' in petstore.webhooks));
  });
});
