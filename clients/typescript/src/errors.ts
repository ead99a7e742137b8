import { errorCodeValues, type components } from './schema.ts';

/** The documented error codes (the OpenAPI Error schema's `code` enum). */
export type ErrorCode = components['schemas']['Error']['code'];

/**
 * `code` of a PetstoreError: a documented code, or `unexpected_response` when the answer was not the
 * service's Error body (e.g. an HTML page from a proxy in between, or a code this client predates).
 */
export type PetstoreErrorCode = ErrorCode | 'unexpected_response';

const KNOWN = new Set<string>(errorCodeValues);

/** A non-2xx answer from the service. */
export class PetstoreError extends Error {
  override readonly name = 'PetstoreError';
  readonly status: number;
  readonly code: PetstoreErrorCode;
  /** The response's `X-Request-Id`: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds the service asked to wait (`Retry-After`), where it said so. */
  readonly retryAfter: number | undefined;
  /** The operationId of the call that failed. */
  readonly operation: string;
  /** The parsed response body (or its text when it was not JSON). */
  readonly body: unknown;

  constructor(init: { status: number; code: PetstoreErrorCode; message: string; requestId?: string; retryAfter?: number; operation: string; body?: unknown }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.operation = init.operation;
    this.body = init.body;
  }

  /** A response that is not what the document promises (e.g. a 2xx whose body is not JSON). */
  static unexpected(operation: string, response: { status: number; headers: Headers }, what: string, body: unknown): PetstoreError {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    return new PetstoreError({ status: response.status, code: 'unexpected_response', message: `HTTP ${response.status} ${what}`, requestId, operation, body });
  }

  /** Builds the error from a response's status and body text (the body is read by the caller). */
  static fromResponse(operation: string, status: number, text: string, headers: { requestId?: string; retryAfter?: number }): PetstoreError {
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    const error = body as { code?: unknown; message?: unknown } | null;
    const documented = typeof error?.code === 'string' && KNOWN.has(error.code) && typeof error.message === 'string';
    return new PetstoreError({
      status,
      code: documented ? (error.code as ErrorCode) : 'unexpected_response',
      message: documented ? (error.message as string) : `HTTP ${status} without the service's Error body`,
      ...headers,
      operation,
      body,
    });
  }
}

/** The service could not be reached or did not answer in time; no HTTP status exists. */
export class PetstoreConnectionError extends Error {
  override readonly name = 'PetstoreConnectionError';
  /** True when the client's `timeoutMs` ran out, false for a network failure. */
  readonly timedOut: boolean;
  readonly operation: string;

  constructor(init: { message: string; timedOut: boolean; operation: string; cause?: unknown }) {
    super(init.message, { cause: init.cause });
    this.timedOut = init.timedOut;
    this.operation = init.operation;
  }
}
