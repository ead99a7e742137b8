import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, ERROR_STATUS, errorBody, StorageUnavailableError, type ErrorCode, type FieldError } from '../../errors.ts';
import { JSON_TYPE } from '../../json.ts';
import { closeGracefullyAfter } from '../edge/graceful-close.ts';
import { describeValidationError } from './validation.ts';
import { fieldError } from './validation.words.ts';

declare module 'fastify' {
  interface FastifyReply {
    /** The `code` of the Error body this reply sent, if it sent one: the access log line names it (telemetry.ts). */
    errorCode: ErrorCode | null;
  }
}

export interface HttpError {
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
  /** validation_failed: the rule broken, where, in words for people. */
  readonly errors?: readonly FieldError[];
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_BAD_URL: 'bad_request',
  FST_ERR_MAX_PARAM_LENGTH: 'bad_request',
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  unsupported_media_type: 'request body must be sent as Content-Type: application/json',
  invalid_json: 'request body is not valid JSON',
  internal_error: 'the service failed unexpectedly; the failure is logged with this request id',
};

/**
 * Maps anything thrown to the public Error shape. Pure, so every branch is unit-tested.
 * 4xx keep a message that helps the client; 5xx never show internals.
 */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof AppError) {
    const http = { status: err.status, code: err.code, message: err.message, headers: err.headers };
    return err.errors === undefined ? http : { ...http, errors: err.errors };
  }
  if (err instanceof StorageUnavailableError) {
    return { status: 503, code: 'service_unavailable', message: 'the database is unreachable; retry later', headers: { 'retry-after': '1' } };
  }
  const e = err as Partial<FastifyError> & { validation?: unknown[]; validationContext?: string };
  if (Array.isArray(e.validation) && e.validation.length > 0) {
    const part = e.validationContext ?? 'body';
    const errors = e.validation as ErrorObject[];
    return { status: 400, code: 'validation_failed', message: describeValidationError(part, errors), headers: {}, errors: [fieldError(part, errors[0])] };
  }
  const mapped = e.code ? FASTIFY_CODES[e.code] : undefined;
  if (mapped) {
    const message = mapped === 'payload_too_large' ? 'request body is larger than the limit' : (MESSAGES[mapped] ?? e.message ?? mapped);
    return { status: ERROR_STATUS[mapped], code: mapped, message, headers: {} };
  }
  // A JSON text that does not parse (Fastify's own parser reports its failures as the codes above).
  if (err instanceof SyntaxError) return { status: 400, code: 'invalid_json', message: `${MESSAGES.invalid_json}: ${err.message}`, headers: {} };
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    const code: ErrorCode = status === 404 ? 'not_found' : status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'bad_request';
    return { status: ERROR_STATUS[code], code, message: e.message ?? code, headers: {} };
  }
  return { status: 500, code: 'internal_error', message: MESSAGES.internal_error!, headers: {} };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const http = toHttpError(err);
  reply.errorCode = http.code;
  if (http.status >= 500) request.log.error({ err }, 'request failed');
  // frameworkErrors (a malformed URL) are answered before any hook ran: name the request here too.
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
  // Fastify closes after a body it did not read (413, unparseable): without a reset (graceful-close.ts).
  if (reply.getHeader('connection') === 'close') closeGracefullyAfter(reply.raw);
  // Sent as the JSON text itself: an AppError keeps its body once written (the 401s are constants).
  const body = err instanceof AppError ? err.body : errorBody(http.code, http.message, http.status, http.errors);
  return reply.code(http.status).headers(http.headers).type(JSON_TYPE).send(body);
}

/** The path of a request target without its query, which may carry secrets: what logs and messages may show. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** The error and not-found handlers; routes take the error handler set when they are registered. */
export const errorHandlerPlugin = fp(errorHandling, { name: 'error-handler' });

async function errorHandling(app: FastifyInstance): Promise<void> {
  app.decorateReply('errorCode', null);
  app.setErrorHandler((err, request, reply) => sendError(request, reply, err));
  app.setNotFoundHandler((request, reply) => {
    sendError(request, reply, new AppError('not_found', `no resource at ${request.method} ${pathOf(request.url)}`));
  });
}
