// Standard Webhooks 1.0 signatures (https://www.standardwebhooks.com): HMAC-SHA256 over
// `${webhook-id}.${webhook-timestamp}.${body}` with the secret's bytes, sent as `v1,<base64>` in
// `webhook-signature` (several, space-separated, while a secret is rotated). WebCrypto only, so it
// runs in browsers, workers and Node ≥ 20 alike; hence async.

import type { components } from './schema.ts';

/**
 * A delivered event, typed from the OpenAPI document's event schemas: narrowing on `type` gives
 * `data` its type (the Pet, Order or Category after the change, or `{ id }` for a deletion).
 */
export type WebhookEvent = components['schemas']['Event'];

/** The signature, timestamp, secret or body of a delivery did not check out. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** A `Headers` object (fetch, workers) or a plain record such as Node's `IncomingHttpHeaders`. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Deliveries older or newer than this (seconds, either way) are refused, against replays. */
export const TOLERANCE_SECONDS = 5 * 60;
const PREFIX = 'whsec_';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() === name) return typeof value === 'string' ? value : value?.join(', ');
  }
  return undefined;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function secretKey(secret: string): Promise<CryptoKey> {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = Uint8Array.from(atob(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret), (c) => c.charCodeAt(0));
  } catch {
    throw new WebhookVerificationError('the secret is not whsec_ followed by base64');
  }
  if (bytes.length === 0) throw new WebhookVerificationError('the secret is empty');
  return globalThis.crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

async function signature(secret: string, id: string, timestamp: number, body: string | Uint8Array): Promise<string> {
  const encoder = new TextEncoder();
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const payload = typeof body === 'string' ? encoder.encode(body) : body;
  const signed = new Uint8Array(prefix.length + payload.length);
  signed.set(prefix);
  signed.set(payload, prefix.length);
  const mac = await globalThis.crypto.subtle.sign('HMAC', await secretKey(secret), signed);
  return toBase64(new Uint8Array(mac));
}

/** Equal without an early exit, so the time taken does not tell how much of a guess was right. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Checks a delivery and returns its event. `rawBody` must be the body exactly as received (the
 * string or its bytes, before any JSON parsing); `secret` is the endpoint's `whsec_…` secret.
 * Throws WebhookVerificationError when a header is missing, the timestamp is more than five minutes
 * off, or no `v1` signature matches.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: { now?: Date } = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > TOLERANCE_SECONDS)
    throw new WebhookVerificationError('webhook-timestamp is more than five minutes off: a replay, or a wrong clock');
  const expected = await signature(secret, id, Number(timestamp), rawBody);
  let matched = false;
  for (const candidate of signatures.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version === 'v1' && value !== undefined && constantTimeEqual(value, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('no webhook-signature matches: wrong secret, or the body was altered');
  let event: unknown;
  try {
    event = JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody));
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) throw new WebhookVerificationError('the body is not an event object');
  return event as WebhookEvent;
}

/**
 * The three headers of a delivery of `rawBody` signed with `secret`, as the service sends them: for a
 * receiver's own tests and tooling.
 */
export async function signWebhook(
  rawBody: string | Uint8Array,
  message: { id: string; timestamp?: Date },
  secret: string,
): Promise<{ 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string }> {
  const timestamp = Math.floor((message.timestamp ?? new Date()).getTime() / 1000);
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${await signature(secret, message.id, timestamp, rawBody)}`,
  };
}
