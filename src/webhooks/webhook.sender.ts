import { Agent } from 'undici';
import type { AddressPolicy } from './webhook.address.ts';

/** At most this much of a response body is read (and then thrown away). */
const RESPONSE_READ_LIMIT = 64 * 1024;
export const USER_AGENT = 'petstore-webhooks/1';

export interface SendResult {
  /** The status the endpoint answered; null when no answer came. */
  readonly status: number | null;
  /** Why the attempt failed, in a few words; null for a 2xx. Never the response body. */
  readonly error: string | null;
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
  readonly #agent: Agent;
  readonly #timeoutMs: number;

  constructor(policy: AddressPolicy, timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#agent = new Agent({ connect: policy.connector(timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 30_000 });
  }

  async send(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<SendResult> {
    const target = new URL(url);
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      const res = await this.#agent.request({ origin: target.origin, path: `${target.pathname}${target.search}`, method: 'POST', headers, body, signal });
      await drain(res.body);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return { status: res.statusCode, error: ok ? null : `HTTP ${res.statusCode}` };
    } catch (err) {
      return { status: null, error: describe(err, signal.aborted, this.#timeoutMs) };
    }
  }

  close(): Promise<void> {
    return this.#agent.close();
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

/** A few words on why no answer came; never anything the endpoint sent. */
function describe(err: unknown, timedOut: boolean, timeoutMs: number): string {
  const e = err as { code?: string; message?: string; name?: string };
  if (timedOut || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') return `no answer within ${timeoutMs} ms`;
  if (e.code === 'ERR_WEBHOOK_ADDRESS_NOT_ALLOWED') return e.message ?? e.code;
  if (e.code === 'ECONNREFUSED') return 'connection refused';
  if (e.code === 'ECONNRESET' || e.code === 'UND_ERR_SOCKET') return 'connection closed by the endpoint';
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return 'host does not resolve';
  if (e.code && /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO/.test(e.code)) return `TLS: ${e.code}`;
  return e.code ?? e.name ?? 'failed';
}
