import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks 1.0). */
export function generateSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/**
 * The `webhook-signature` value of one delivery (Standard Webhooks 1.0): for each secret,
 * `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed with the secret's bytes (the
 * base64 after `whsec_`), separated by spaces. Several secrets sign during a rotation's overlap.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets
    .map(
      (s) =>
        `v1,${createHmac('sha256', Buffer.from(s.slice(PREFIX.length), 'base64'))
          .update(content)
          .digest('base64')}`,
    )
    .join(' ');
}
