// One HTTP call with everything around it: authentication, Idempotency-Key, timeout, retries,
// typed errors, rate-limit and deprecation headers. Runs on any fetch (browsers, Node ≥ 20).
import { PetstoreConnectionError, PetstoreError } from './errors.ts';
import { parseDeprecation, parseRateLimit, parseRetryAfter, type Deprecation, type RateLimit } from './headers.ts';
import { HEADER_OPTIONS, type HeaderOptions, type OperationId, type RequestOptions } from './operations.ts';
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
  readonly operation: OperationId;
  /** What the document says of it (routes.ts): method, path template (for warnings), documented headers. */
  readonly route: { readonly method: string; readonly path: string; readonly headers: readonly string[] };
  /** The path below the base URL, parameters filled in. */
  readonly path: string;
  readonly query?: Readonly<Record<string, unknown>>;
  /** A JSON value, or bytes sent as they are with their media type (a photo). */
  readonly body?: unknown;
  /** A stream (an import's file) is sent once: a call that sends one is not retried. */
  readonly bytes?: { readonly data: Blob | Uint8Array | ReadableStream<Uint8Array>; readonly type: string };
  /** The answer is bytes (routes.ts `binary`): resolved as a Blob, not parsed as JSON. */
  readonly binary?: boolean;
  /** The answer is text of any length (routes.ts `stream`: CSV): resolved as soon as it starts, as a ReadableStream of text. */
  readonly stream?: boolean;
  readonly options?: (RequestOptions & HeaderOptions) | undefined;
}

export interface Answer {
  /** A 2xx, or 304 to a call that passed `ifNoneMatch`. */
  readonly status: number;
  /** The JSON body (a Blob for a binary answer, a ReadableStream of text for a streamed one); undefined for 204 and 304. */
  readonly body: unknown;
  readonly headers: Headers;
}

export function positiveInteger(name: string, value: number, min: number): number {
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

/**
 * The request headers a call's options ask for. Only the headers the operation's entry documents
 * are taken (a JavaScript caller gets a TypeError, a TypeScript one a compile error, for any other);
 * an `Idempotency-Key` is made up where the operation takes one and the caller gave none.
 */
function headerOptions(call: Call): [name: string, value: string][] {
  const options = call.options ?? {};
  const out: [string, string][] = [];
  for (const [header, option] of Object.entries(HEADER_OPTIONS) as [keyof typeof HEADER_OPTIONS, keyof HeaderOptions][]) {
    const given = Object.hasOwn(options, option);
    if (!call.route.headers.includes(header)) {
      if (given) throw new TypeError(`Petstore: ${call.operation} takes no ${option} (its OpenAPI entry documents no ${header} header)`);
      continue;
    }
    const value = options[option];
    if (value !== undefined && typeof value !== 'string') throw new TypeError(`Petstore: ${option} must be a string`);
    // A tag that is missing by mistake would make the write unconditional: the lost update If-Match prevents.
    if (value === undefined && given && option === 'ifMatch')
      throw new TypeError('Petstore: ifMatch is undefined; pass an ETag (or "*"), or leave the option out to write unconditionally');
    // One key per call, not per attempt: the service then replays instead of creating twice.
    const sent = value ?? (option === 'idempotencyKey' ? randomUUID() : undefined);
    if (sent !== undefined) out.push([header, sent]);
  }
  return out;
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

/** The version path every operation's path is relative to: the end of every server URL. */
export const API_VERSION_PATH = '/v1';
const EXAMPLE_BASE_URL = `http://127.0.0.1:8080${API_VERSION_PATH}`;

/**
 * The base URL, without a trailing slash; a TypeError saying what is wrong with anything else. Told at
 * construction, because each mistake would otherwise surface on every call as a bare "Invalid URL" or a 404.
 */
export function checkBaseUrl(value: unknown): string {
  const wrong = (what: string) => new TypeError(`Petstore: baseUrl ${what}; it is the API's base URL with ${API_VERSION_PATH}, e.g. ${EXAMPLE_BASE_URL}`);
  if (typeof value !== 'string' || value.trim() === '') throw wrong(value === undefined || value === '' ? 'is not set' : 'must be a string');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw wrong(`${JSON.stringify(value)} is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw wrong(`must be http: or https:, not ${url.protocol}`);
  // fetch refuses a URL with credentials; the query and fragment would be lost to every path appended.
  if (url.username !== '' || url.password !== '') throw wrong('must not hold credentials (the apiKey option authenticates)');
  if (url.search !== '' || url.hash !== '') throw wrong(`${JSON.stringify(value)} must not have a query or fragment`);
  const base = url.href.replace(/\/+$/, '');
  if (!base.endsWith(API_VERSION_PATH)) throw wrong(`${JSON.stringify(value)} does not end with ${API_VERSION_PATH}`);
  return base;
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
    this.baseUrl = checkBaseUrl(options.baseUrl);
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('Petstore: apiKey is required');
    const fetch = options.fetch ?? globalThis.fetch;
    if (typeof fetch !== 'function') throw new TypeError('Petstore: no fetch available; pass one in the options');
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
    for (const [name, value] of headerOptions(call)) headers.set(name, value);
    headers.set('authorization', this.#authorization);
    headers.set('accept', call.binary || call.stream ? '*/*' : 'application/json');
    if (call.bytes !== undefined) headers.set('content-type', call.bytes.type);
    else if (call.body !== undefined) headers.set('content-type', 'application/json');
    const { method } = call.route;
    const idempotent = call.route.headers.includes('idempotency-key');
    const body = call.bytes !== undefined ? (call.bytes.data as BodyInit) : call.body === undefined ? null : JSON.stringify(call.body);
    const streamed = body instanceof ReadableStream;
    // A stream is sent as it is read (`duplex: 'half'`, which fetch requires for one), and only once.
    const init: RequestInit = streamed ? ({ method, headers, body, duplex: 'half' } as RequestInit) : { method, headers, body };
    const timeoutMs = options?.timeoutMs === undefined ? this.#timeoutMs : positiveInteger('timeoutMs', options.timeoutMs, 1);
    const maxRetries = streamed ? 0 : options?.maxRetries === undefined ? this.#maxRetries : positiveInteger('maxRetries', options.maxRetries, 0);

    for (let retry = 0; ; retry++) {
      const attempt = await this.#attempt(call, url, init, timeoutMs);
      let failure: PetstoreError | PetstoreConnectionError;
      if ('error' in attempt) failure = attempt.error;
      else {
        const { response, text } = attempt;
        this.#observe(call, response.headers);
        // 304 answers a conditional read; to any other call it is as unexpected as any other status.
        if (attempt.blob !== undefined) return { status: response.status, body: attempt.blob, headers: response.headers };
        if (attempt.stream !== undefined) return { status: response.status, body: attempt.stream, headers: response.headers };
        if (response.ok || (response.status === 304 && options?.ifNoneMatch !== undefined)) return this.#answer(call, response, text);
        failure = PetstoreError.fromResponse(call.operation, response.status, text, {
          requestId: response.headers.get('x-request-id') ?? undefined,
          retryAfter: parseRetryAfter(response.headers.get('retry-after')),
        });
      }
      const delay =
        retry < maxRetries && isRetryable(failure, method, idempotent) ? retryDelay(retry, 'status' in failure ? failure.retryAfter : undefined) : undefined;
      if (delay === undefined) throw failure;
      await sleep(delay, options?.signal);
    }
  }

  async #attempt(
    call: Call,
    url: URL,
    init: RequestInit,
    timeoutMs: number,
  ): Promise<{ response: Response; text: string; blob?: Blob; stream?: ReadableStream<string> } | { error: PetstoreConnectionError }> {
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
    // A streamed answer stays cancellable by the caller's signal while it is read; the timeout covers its start only.
    let streaming = false;
    try {
      const response = await fetch(url, { ...init, signal: controller.signal });
      // The bytes of a binary success as they came; everything else (errors included) is text.
      if (call.binary && response.ok) return { response, text: '', blob: await response.blob() };
      if (call.stream && response.ok && response.body !== null) {
        streaming = true;
        return { response, text: '', stream: response.body.pipeThrough(new TextDecoderStream()) };
      }
      return { response, text: await response.text() };
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      const message = timedOut ? `no response within ${timeoutMs} ms` : `the request failed: ${cause instanceof Error ? cause.message : String(cause)}`;
      return {
        error: new PetstoreConnectionError({
          message: `${call.operation} (${call.route.method} ${url.pathname}): ${message}`,
          timedOut,
          operation: call.operation,
          cause,
        }),
      };
    } finally {
      clearTimeout(timer);
      if (!streaming) signal?.removeEventListener('abort', abort);
    }
  }

  /** A success: its JSON body (none for 204 and 304). */
  #answer(call: Call, response: Response, text: string): Answer {
    const { status, headers } = response;
    if (text === '' || status === 304) return { status, body: undefined, headers };
    try {
      return { status, body: JSON.parse(text), headers };
    } catch {
      throw PetstoreError.unexpected(call.operation, response, 'with a body that is not JSON', text);
    }
  }

  #observe(call: Call, headers: Headers): void {
    this.rateLimit = parseRateLimit(headers.get('ratelimit'), headers.get('ratelimit-policy')) ?? this.rateLimit;
    if (this.#warned.has(call.operation)) return;
    const deprecation = parseDeprecation(headers, this.baseUrl);
    if (deprecation === undefined) return;
    this.#warned.add(call.operation);
    warn(deprecationMessage(call.operation, `${call.route.method} ${call.route.path}`, deprecation));
  }
}
