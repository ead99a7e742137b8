// Every error the service emits carries one of these codes. The list is the public contract
// (docs/api.md documents each); add to it, never rename.
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  bad_request: 400,
  unknown_category: 400,
  unknown_pet: 400,
  unknown_customer: 400,
  invalid_cursor: 400,
  webhook_url_not_allowed: 400,
  invalid_image: 400,
  invalid_invitation: 400,
  passkey_refused: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  forbidden: 403,
  csrf_failed: 403,
  passkey_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  pet_not_available: 409,
  invalid_transition: 409,
  idempotency_key_in_use: 409,
  pet_has_open_order: 409,
  category_exists: 409,
  category_in_use: 409,
  webhook_disabled: 409,
  too_many_photos: 409,
  already_voided: 409,
  customer_has_open_sale: 409,
  pet_on_hold: 409,
  hold_not_live: 409,
  webhook_limit_reached: 409,
  key_limit_reached: 409,
  staff_exists: 409,
  last_owner: 409,
  microchip_in_use: 409,
  record_incomplete: 409,
  request_timeout: 408,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  image_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  request_header_fields_too_large: 431,
  internal_error: 500,
  not_implemented: 501,
  service_unavailable: 503,
  http_version_not_supported: 505,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/**
 * One rule a `validation_failed` request broke, in a form a client can render beside its input:
 * where (`in`, and `field` written as a client names it: `tags[0]`, `price.amount`, `If-Match`),
 * which rule (the JSON Schema keyword, or one of the few rules a schema cannot state: docs/api.md,
 * "Errors"), and the rule in words for people.
 */
export interface FieldError {
  readonly in: 'body' | 'query' | 'path' | 'header';
  readonly field: string;
  readonly rule: string;
  readonly message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** What `validation_failed` broke; every such error carries at least one (see invalid()). */
  readonly errors: readonly FieldError[] | undefined;
  #body: string | undefined;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}, errors?: readonly FieldError[]) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
    this.errors = errors;
  }

  /** The Error response body as JSON, written once per error object. */
  get body(): string {
    this.#body ??= errorBody(this.code, this.message, this.status, this.errors);
    return this.#body;
  }
}

/** The Error body's JSON: `errors` only where there are some (validation_failed). */
export function errorBody(code: ErrorCode, message: string, status: number, errors: readonly FieldError[] | undefined): string {
  return JSON.stringify(errors === undefined ? { code, message, status } : { code, message, status, errors });
}

/** 400 validation_failed: `message` for programmers (the field and the exact rule), `broken` for a client to show. */
export function invalid(message: string, ...broken: [FieldError, ...FieldError[]]): AppError {
  return new AppError('validation_failed', message, {}, broken);
}

/** 404 for `what` ("pet 42"): the one wording of `not_found` for a resource that is not there. */
export function notFound(what: string): AppError {
  return new AppError('not_found', `${what} does not exist`);
}

/** The resource a workflow addresses must exist (a withdrawn pet or a deleted category does not). */
export function assertFound<T>(what: string, resource: T | undefined): asserts resource is T {
  if (resource === undefined) throw notFound(what);
}

/** Storage engines throw this when the database cannot be reached; the HTTP layer answers 503. */
export class StorageUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}
