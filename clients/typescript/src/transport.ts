// One HTTP call with everything around it: authentication, Idempotency-Key, timeout, retries,
// typed errors, rate-limit and deprecation headers. Runs on any fetch (browsers, Node ≥ 20).
import { PetstoreConnectionError, PetstoreError } from './errors.ts';
import { parseDeprecation, parseRateLimit, parseRetryAfter, type Deprecation, type RateLimit } from './headers.ts';
import type { RequestOptions } from './operations.ts';
import { isRetryable, retryDelay } from './retry.ts';

export interface TransportOptions {
  /** The API's base URL, `/v1` included: `https://api.example.com/v1`. */
  readonly baseUrl: string;
  /** An API key (`pst_…`), sent as `Authorization: Bearer`. */
  readonly apiKey: string;
  /** The fetch to use (default: `globalThis.fetch`), e.g. one with a proxy agent or instrumentation. */
  readonly fetch?: typeof globalThis.fetch;
  /** How long one attempt (request and whole response) may take, in ms (default 30 000). */
  readonly timeoutMs?: number;
  /** How many times a retryable failure is retried (default 2, so at most 3 attempts). */
  readonly maxRetries?: number;
}

export interface Call {
  /** The operationId, for errors and warnings. */
  readonly operation: string;
  readonly method: string;
  /** The operation takes `Idempotency-Key` (createPet, placeOrder): it gets one, and may be repeated after a connection failure. */
  readonly idempotent: boolean;
  /** The path below the base URL, parameters filled in. */
  readonly path: string;
  /** The path as the document names it (`/pets/{petId}`), for warnings. */
  readonly template: string;
  readonly query?: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
  readonly options?: RequestOptions | undefined;
}

export interface Answer {
  readonly body: unknown;
  readonly headers: Headers;
}

function positiveInteger(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new TypeError(`Petstore: ${name} must be an integer ≥ ${min}, not ${value}`);
  return value;
}

/** A random UUID; browsers offer crypto.randomUUID only in secure contexts, getRandomValues everywhere. */
export function randomUUID(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40; // version 4
  b[8] = (b[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** Node's process.emitWarning where it exists (found without importing anything from Node), else console.warn. */
function warn(message: string): void {
  const host = (globalThis as { process?: { emitWarning?: (message: string, options: { type: string; code: string }) => void } }).process;
  if (typeof host?.emitWarning === 'function') host.emitWarning(message, { type: 'DeprecationWarning', code: 'PETSTORE_DEPRECATED_OPERATION' });
  else console.warn(message);
}

export function deprecationMessage(operation: string, call: string, d: Deprecation): string {
  return [
    `Petstore: ${operation} (${call}) is deprecated since ${d.since}`,
    d.sunset ? `; it stops working on ${d.sunset} (Sunset)` : '',
    d.successor ? `. Use its successor: ${d.successor}` : '',
    d.documentation ? `. See ${d.documentation}` : '',
    '.',
  ].join('');
}

export class Transport {
  readonly baseUrl: string;
  readonly #authorization: string;
  readonly #fetch: typeof globalThis.fetch;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #warned = new Set<string>();
  /** The last RateLimit values any response carried. */
  rateLimit: RateLimit | undefined;

  constructor(options: TransportOptions) {
    const base = new URL(options.baseUrl); // throws on a relative or malformed URL
    if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new TypeError(`Petstore: baseUrl must be http(s), not ${base.protocol}`);
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('Petstore: apiKey is required');
    const fetch = options.fetch ?? globalThis.fetch;
    if (typeof fetch !== 'function') throw new TypeError('Petstore: no fetch available; pass one in the options');
    this.baseUrl = base.href.replace(/\/+$/, '');
    this.#authorization = `Bearer ${options.apiKey}`;
    this.#fetch = fetch;
    this.#timeoutMs = positiveInteger('timeoutMs', options.timeoutMs ?? 30_000, 1);
    this.#maxRetries = positiveInteger('maxRetries', options.maxRetries ?? 2, 0);
  }

  async request(call: Call): Promise<Answer> {
    const { options } = call;
    const url = new URL(this.baseUrl + call.path);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined && v !== null) url.searchParams.append(name, String(v));
    }
    const headers = new Headers(options?.headers);
    headers.set('authorization', this.#authorization);
    headers.set('accept', 'application/json');
    if (call.body !== undefined) headers.set('content-type', 'application/json');
    // One key per call, not per attempt: the service then replays instead of creating twice.
    if (call.idempotent) headers.set('idempotency-key', options?.idempotencyKey ?? randomUUID());
    const init: RequestInit = { method: call.method, headers, body: call.body === undefined ? null : JSON.stringify(call.body) };
    const timeoutMs = options?.timeoutMs === undefined ? this.#timeoutMs : positiveInteger('timeoutMs', options.timeoutMs, 1);
    const maxRetries = options?.maxRetries === undefined ? this.#maxRetries : positiveInteger('maxRetries', options.maxRetries, 0);

    for (let retry = 0; ; retry++) {
      const attempt = await this.#attempt(call, url, init, timeoutMs);
      let failure: PetstoreError | PetstoreConnectionError;
      if ('error' in attempt) failure = attempt.error;
      else {
        const { response, text } = attempt;
        this.#observe(call, response.headers);
        if (response.ok) return { body: this.#json(call, response, text), headers: response.headers };
        failure = PetstoreError.fromResponse(call.operation, response.status, text, {
          requestId: response.headers.get('x-request-id') ?? undefined,
          retryAfter: parseRetryAfter(response.headers.get('retry-after')),
        });
      }
      const delay = retry < maxRetries && isRetryable(failure, call.method, call.idempotent) ? retryDelay(retry, 'status' in failure ? failure.retryAfter : undefined) : undefined;
      if (delay === undefined) throw failure;
      await sleep(delay, options?.signal);
    }
  }

  async #attempt(call: Call, url: URL, init: RequestInit, timeoutMs: number): Promise<{ response: Response; text: string } | { error: PetstoreConnectionError }> {
    const signal = call.options?.signal;
    signal?.throwIfAborted();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const abort = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', abort, { once: true });
    // Called unbound: a browser's fetch throws "Illegal invocation" when called as a method of another object.
    const fetch = this.#fetch;
    try {
      const response = await fetch(url, { ...init, signal: controller.signal });
      return { response, text: await response.text() };
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      const message = timedOut ? `no response within ${timeoutMs} ms` : `the request failed: ${cause instanceof Error ? cause.message : String(cause)}`;
      return { error: new PetstoreConnectionError({ message: `${call.operation} (${call.method} ${url.pathname}): ${message}`, timedOut, operation: call.operation, cause }) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    }
  }

  #json(call: Call, response: Response, text: string): unknown {
    if (text === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw new PetstoreError({
        status: response.status,
        code: 'unexpected_response',
        message: `HTTP ${response.status} with a body that is not JSON`,
        requestId: response.headers.get('x-request-id') ?? undefined,
        operation: call.operation,
        body: text,
      });
    }
  }

  #observe(call: Call, headers: Headers): void {
    this.rateLimit = parseRateLimit(headers.get('ratelimit'), headers.get('ratelimit-policy')) ?? this.rateLimit;
    if (this.#warned.has(call.operation)) return;
    const deprecation = parseDeprecation(headers, this.baseUrl);
    if (deprecation === undefined) return;
    this.#warned.add(call.operation);
    warn(deprecationMessage(call.operation, `${call.method} ${call.template}`, deprecation));
  }
}
