import { ERROR_STATUSES } from './routes.ts';
import { errorCodeValues, type components } from './schema.ts';

/** The documented error codes (the OpenAPI Error schema's `code` enum). */
export type ErrorCode = components['schemas']['Error']['code'];

/**
 * `code` of a PetstoreError: a documented code, or `unexpected_response` when the answer was not the
 * service's Error body (e.g. an HTML page from a proxy in between, or a code this client predates).
 */
export type PetstoreErrorCode = ErrorCode | 'unexpected_response';

/** One rule a `validation_failed` request broke: where, which rule, and the rule in words to show beside the field. */
export type FieldError = NonNullable<components['schemas']['Error']['errors']>[number];

/** The error statuses the OpenAPI document lists (every 4xx and 5xx some operation may answer). */
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

type Digit = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
type Numeric<S> = S extends `${infer N extends number}` ? N : never;
/** Any status a fetch `Response` can have (200–599): what an `unexpected_response` may carry. */
export type HttpStatus = Numeric<`${2 | 3 | 4 | 5}${Digit}${Digit}`>;

const KNOWN = new Set<string>(errorCodeValues);
const LISTED = new Set<number>(ERROR_STATUSES);

interface Fields {
  /** The response's `X-Request-Id`: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds the service asked to wait (`Retry-After`), where it said so. */
  readonly retryAfter: number | undefined;
  /** The operationId of the call that failed. */
  readonly operation: string;
  /** The parsed response body (or its text when it was not JSON). */
  readonly body: unknown;
  /** `validation_failed`: the rules broken, each with its field and words for people; otherwise empty. */
  readonly errors: readonly FieldError[];
}

/**
 * `status` follows `code`: a documented code comes with one of the statuses the document lists
 * (`ErrorStatus`), so `err.status === 4044` does not compile; `unexpected_response` with whatever
 * status the answer had.
 */
type StatusAndCode = { readonly status: ErrorStatus; readonly code: ErrorCode } | { readonly status: HttpStatus; readonly code: 'unexpected_response' };

export type PetstoreErrorInit = StatusAndCode & {
  readonly message: string;
  readonly requestId?: string;
  readonly retryAfter?: number;
  readonly operation: string;
  readonly body?: unknown;
};

/** A non-2xx answer from the service (or one that is not what the document promises). */
export type PetstoreError = Error & Fields & StatusAndCode & { readonly name: 'PetstoreError' };

// One class at run time; its instance type is the union above (a class cannot declare one), so
// `instanceof PetstoreError` narrows to it and `code` then narrows `status`.
class PetstoreErrorClass extends Error implements Fields {
  override readonly name = 'PetstoreError';
  readonly status: HttpStatus;
  readonly code: PetstoreErrorCode;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  readonly operation: string;
  readonly body: unknown;
  readonly errors: readonly FieldError[];

  constructor(init: PetstoreErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.operation = init.operation;
    this.body = init.body;
    const errors = init.code === 'validation_failed' ? (init.body as { errors?: unknown } | null)?.errors : undefined;
    this.errors = Array.isArray(errors) ? (errors as FieldError[]) : [];
  }

  /** A response that is not what the document promises (e.g. a 2xx whose body is not JSON). */
  static unexpected(operation: string, response: { status: number; headers: Headers }, what: string, body: unknown): PetstoreError {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const status = response.status as HttpStatus;
    return new PetstoreError({ status, code: 'unexpected_response', message: `HTTP ${status} ${what}`, requestId, operation, body });
  }

  /**
   * Builds the error from a response's status and body text (the body is read by the caller). A
   * documented code at a status the document lists is the service's Error; anything else is an
   * `unexpected_response`, its body kept.
   */
  static fromResponse(operation: string, status: number, text: string, headers: { requestId?: string; retryAfter?: number }): PetstoreError {
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    const error = body as { code?: unknown; message?: unknown } | null;
    const common = { ...headers, operation, body };
    if (typeof error?.code === 'string' && KNOWN.has(error.code) && typeof error.message === 'string' && LISTED.has(status))
      return new PetstoreError({ status: status as ErrorStatus, code: error.code as ErrorCode, message: error.message, ...common });
    return new PetstoreError({
      status: status as HttpStatus,
      code: 'unexpected_response',
      message: `HTTP ${status}: not an Error answer the OpenAPI document describes (see body)`,
      ...common,
    });
  }
}

interface PetstoreErrorConstructor {
  new (init: PetstoreErrorInit): PetstoreError;
  readonly prototype: PetstoreError;
  readonly unexpected: typeof PetstoreErrorClass.unexpected;
  readonly fromResponse: typeof PetstoreErrorClass.fromResponse;
}
export const PetstoreError = PetstoreErrorClass as unknown as PetstoreErrorConstructor;

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
