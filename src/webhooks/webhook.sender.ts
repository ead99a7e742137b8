import { createSecureContext, getCACertificates } from 'node:tls';
import type { Agent } from 'undici';
import type { AddressPolicy } from './webhook.address.ts';

/** At most this much of a response body is read (and then thrown away). */
const RESPONSE_READ_LIMIT = 64 * 1024;
export const USER_AGENT = 'petstore-webhooks/1';

export interface SendResult {
  /** The status the endpoint answered; null when no answer came. */
  readonly status: number | null;
  /** Why the attempt failed, in a few words; null for a 2xx. Never the response body. */
  readonly error: string | null;
  /** The answer's Retry-After field, when it has exactly one (webhook.retry-after.ts reads it). */
  readonly retryAfter?: string;
}

export interface Sender {
  send(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<SendResult>;
  close(): Promise<void>;
}

/**
 * POSTs deliveries with undici (the HTTP client Node's fetch is built on): one agent per instance,
 * keeping a pool of keep-alive connections per endpoint origin; every connection made through the
 * address policy's connector (no SSRF, no DNS rebinding); redirects are not followed (undici's
 * dispatcher follows none: a 3xx is a failed attempt); the whole attempt — connect, TLS, headers
 * and what is read of the body — within `timeoutMs`.
 */
export class WebhookSender implements Sender {
  readonly #policy: AddressPolicy;
  readonly #tls: Readonly<Record<string, unknown>>;
  readonly #timeoutMs: number;
  /** Made on the first delivery: undici (≈ 0.15 s of CPU to load) is not loaded by instances that never send. */
  #agent: Promise<Agent> | undefined;

  /**
   * `caCertificates`: PEM certificates of CAs trusted besides Node's own store (which holds
   * NODE_EXTRA_CA_CERTS too); certificates are verified, and their host names checked, always.
   */
  constructor(policy: AddressPolicy, timeoutMs: number, caCertificates: readonly string[] = []) {
    this.#policy = policy;
    this.#timeoutMs = timeoutMs;
    // One secure context for every connection, built once: not one per connection from the PEM text.
    this.#tls = caCertificates.length === 0 ? {} : { secureContext: createSecureContext({ ca: [...getCACertificates('default'), ...caCertificates] }) };
  }

  #agentMade(): Promise<Agent> {
    this.#agent ??= import('undici').then(
      ({ Agent, buildConnector }) =>
        new Agent({
          connect: this.#policy.connector(buildConnector, this.#timeoutMs, this.#tls),
          headersTimeout: this.#timeoutMs,
          bodyTimeout: this.#timeoutMs,
          keepAliveTimeout: 30_000,
        }),
    );
    return this.#agent;
  }

  async send(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<SendResult> {
    const target = new URL(url);
    const agent = await this.#agentMade();
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      const res = await agent.request({ origin: target.origin, path: `${target.pathname}${target.search}`, method: 'POST', headers, body, signal });
      await drain(res.body);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const retryAfter = res.headers['retry-after'];
      return { status: res.statusCode, error: ok ? null : `HTTP ${res.statusCode}`, ...(typeof retryAfter === 'string' && { retryAfter }) };
    } catch (err) {
      return { status: null, error: describe(err, signal.aborted, this.#timeoutMs) };
    }
  }

  async close(): Promise<void> {
    await (await this.#agent)?.close();
  }
}

/**
 * Reads at most RESPONSE_READ_LIMIT bytes, so a well-behaved connection can be reused; past that,
 * or when reading fails or runs out of time, the connection is dropped. The answer already counts.
 */
async function drain(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.length;
      if (read > RESPONSE_READ_LIMIT) {
        body.destroy();
        return;
      }
    }
  } catch {
    body.destroy();
  }
}

/** Why a receiver's certificate was refused, by OpenSSL's and Node's verification codes. */
const TLS_REFUSALS: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in a self-signed certificate that is not trusted',
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: "the certificate is for another host (the URL's host is not among its names)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate is not signed by a trusted CA',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the certificate is not signed by a trusted CA',
  UNABLE_TO_GET_ISSUER_CERT: 'the certificate is not signed by a trusted CA',
  CERT_REVOKED: 'the certificate is revoked',
  CERT_SIGNATURE_FAILURE: 'the certificate signature does not verify',
};

/**
 * A few words on why no answer came; never anything the endpoint sent. A connection refused or
 * reset, or any other failure below HTTP, is only "connection failed": the log must not tell a
 * closed port from a filtered one or a crashed service (it would make the service a port scanner).
 * A refused certificate says why, which is the receiver's to fix.
 */
function describe(err: unknown, timedOut: boolean, timeoutMs: number): string {
  const e = err as { code?: string; message?: string; name?: string };
  if (timedOut || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') return `no answer within ${timeoutMs} ms`;
  if (e.code === 'ERR_WEBHOOK_ADDRESS_NOT_ALLOWED') return e.message ?? e.code;
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return 'host does not resolve';
  if (e.code !== undefined && TLS_REFUSALS[e.code] !== undefined) return `TLS: ${TLS_REFUSALS[e.code]}`;
  if (e.code !== undefined && /CERT|TLS|SSL/.test(e.code)) return 'TLS: the certificate or the handshake was refused';
  return 'connection failed';
}
