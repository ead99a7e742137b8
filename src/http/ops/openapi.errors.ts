import { CSRF_FAILED } from '../policies/session-cookie.ts';
import { invalidInvitation, lastOwner, staffExists } from '../../staff/staff.service.ts';
import { passkeyRefused } from '../../staff/passkey.service.ts';
import { PASSKEY_REQUIRED } from '../../staff/session.service.ts';
import { keyLimitReached } from '../../keys/key.service.ts';
import { notManaged } from '../../webhooks/webhook.access.ts';
import { errorCodes } from 'fastify';
import type { ValidateFunction } from 'ajv';
import { notFound, StorageUnavailableError, type ErrorCode } from '../../errors.ts';
import { CursorCodec } from '../../paging.ts';
import { categoryInUse, duplicateCategory } from '../../categories/category.service.ts';
import { assertIfMatch, parseCondition } from '../../preconditions.ts';
import { petHasOpenOrder, unknownCategory } from '../../pets/pet.service.ts';
import { microchipInUse, recordIncomplete } from '../../pets/pet.record.ts';
import { tooManyPixels, unreadable } from '../../photos/photo.image.ts';
import { tooManyPhotos } from '../../photos/photo.service.ts';
import { VOIDED_HEALTH_RECORD_EXAMPLE } from '../../health/health.schemas.ts';
import { alreadyVoided } from '../../health/health.service.ts';
import { customerHasOpenSale } from '../../customers/customer.service.ts';
import { holdNotLive, petOnHold } from '../../holds/hold.rules.ts';
import { unknownCustomer } from '../../store/order.service.ts';
import { assertPetOrderable, assertTransition } from '../../store/order.lifecycle.ts';
import { webhookDisabled } from '../../webhooks/webhook.deliveries.ts';
import { AddressPolicy } from '../../webhooks/webhook.address.ts';
import { webhookLimitReached } from '../../webhooks/webhook.service.ts';
import { parseErrorAnswer, type ParseError, unsupportedVersion } from '../edge/connection.ts';
import { methodNotAllowedHere } from '../edge/method-not-allowed.ts';
import { insufficientScope, keyOverLimit, MISSING_AUTHORIZATION } from '../policies/auth.ts';
import { pastSunset, type Deprecation } from '../policies/deprecation.ts';
import { toHttpError, type HttpError } from '../policies/error-handler.ts';
import { idempotencyKeyInUse, idempotencyKeyReused, malformedIdempotencyKey } from '../policies/idempotency.ts';
import { buildValidatorCompiler } from '../policies/validation.ts';

/**
 * Where on its way in a request is refused, which decides the headers set along the way that the
 * refusal carries (app.ts orders the hooks):
 * - `connection`: before Fastify saw a request; connection.ts writes the whole answer, Cache-Control included;
 * - `before-auth`: by a hook that runs before authentication (the shutdown refusal, a deprecated
 *   operation's 410): no Cache-Control, which authentication sets;
 * - `auth`: by authentication, before the key was counted: Cache-Control, no RateLimit fields;
 * - `counted`: once the key was counted (the route's own checks, its body, its handler): both.
 */
export type Stage = 'connection' | 'before-auth' | 'auth' | 'counted';

/** What the document says of one error code. */
export interface ErrorFacts {
  /** Every stage that can refuse a request with this code. */
  readonly raised: readonly Stage[];
  /** An example, as the service answers it: what the service throws, through the error handler. */
  example(route: { readonly deprecation?: Deprecation }): HttpError;
}

/** What `check` throws: the examples are refusals of the very checks the service makes. */
function thrownBy(check: () => unknown): unknown {
  try {
    check();
  } catch (err) {
    return err;
  }
  throw new Error(`expected a refusal from ${check}`);
}

// One array for every example: the compiler is kept per set of shared schemas (by identity), so each
// document reuses it instead of building an ajv instance per example.
const NO_SHARED_SCHEMAS: readonly object[] = [];

/** The error Fastify throws when a body fails its schema, as the route validators build it. */
function validationError(schema: object, body: unknown): unknown {
  const validate = buildValidatorCompiler(NO_SHARED_SCHEMAS)({ schema, httpPart: 'body', method: 'POST', url: '' }) as ValidateFunction;
  validate(body);
  return { validation: validate.errors, validationContext: 'body' };
}

/** What node:http reports of a message it could not parse. */
function parseError(code: string, packet = ''): ParseError {
  return Object.assign(new Error(code), { code, rawPacket: Buffer.from(packet, 'latin1'), bytesParsed: 0 });
}

/** An example of every error code, from what the service throws, and where it is raised. */
async function build(): Promise<Readonly<Record<ErrorCode, ErrorFacts>>> {
  // The one refusal only an asynchronous check makes: a webhook URL whose host resolves to a private address.
  const privateAddress = new AddressPolicy({ allowedHosts: [], allowHttp: false, resolve: async () => [{ address: '10.0.0.7', family: 4 }] });
  const refusedUrl = await privateAddress.check('https://hooks.internal/').then(
    (url) => new Error(`${url} was expected to be refused`),
    (err: unknown) => err,
  );
  const facts = (raised: readonly Stage[], thrown: (route: { readonly deprecation?: Deprecation }) => unknown): ErrorFacts => ({
    raised,
    example: (route) => toHttpError(thrown(route)),
  });
  const counted = ['counted'] as const;
  return {
    validation_failed: facts(counted, () => validationError({ type: 'object', properties: { name: { type: 'string', minLength: 1 } } }, { name: '' })),
    invalid_json: facts(counted, () => new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY()),
    // Two Authorization fields are refused by authentication; a request the parser refuses by connection.ts.
    bad_request: facts(['connection', 'auth', 'counted'], () => malformedIdempotencyKey()),
    unknown_category: facts(counted, () => unknownCategory(42)),
    unknown_pet: facts(counted, () => thrownBy(() => assertPetOrderable(42, undefined))),
    unknown_customer: facts(counted, () => unknownCustomer(42)),
    invalid_cursor: facts(counted, () => thrownBy(() => new CursorCodec('example').decode('pets', 'not-a-cursor'))),
    webhook_url_not_allowed: facts(counted, () => refusedUrl),
    invalid_image: facts(counted, () => unreadable('VipsJpeg: premature end of input file')),
    unauthorized: facts(['auth'], () => MISSING_AUTHORIZATION),
    insufficient_scope: facts(counted, () => insufficientScope('pets:write')),
    key_limit_reached: facts(counted, () => keyLimitReached(4, 100)),
    forbidden: facts(counted, () => notManaged({ id: 3, keyId: 4 })),
    not_found: facts(counted, () => notFound('pet 42')),
    method_not_allowed: facts(counted, () => methodNotAllowedHere('PUT', 'GET, HEAD, PATCH, DELETE')),
    pet_not_available: facts(counted, () => thrownBy(() => assertPetOrderable(42, 'pending'))),
    invalid_transition: facts(counted, () => thrownBy(() => assertTransition(7, { status: 'delivered' }, 'cancelled'))),
    idempotency_key_in_use: facts(counted, () => idempotencyKeyInUse()),
    pet_has_open_order: facts(counted, () => petHasOpenOrder(42, 'status')),
    pet_on_hold: facts(counted, () => petOnHold(42, { id: 3, until: '2026-11-29T18:00:00.000Z' })),
    hold_not_live: facts(counted, () => holdNotLive({ id: 3, state: 'expired' })),
    customer_has_open_sale: facts(counted, () => customerHasOpenSale(1, 'order 7 is placed')),
    category_exists: facts(counted, () => duplicateCategory('Horses')),
    category_in_use: facts(counted, () => categoryInUse(7)),
    webhook_disabled: facts(counted, () => webhookDisabled(3)),
    too_many_photos: facts(counted, () => tooManyPhotos(42)),
    microchip_in_use: facts(counted, () => microchipInUse('985112345678903', 7, true)),
    record_incomplete: facts(counted, () => recordIncomplete(42, ['source', 'acquiredAt'])),
    already_voided: facts(counted, () => alreadyVoided(VOIDED_HEALTH_RECORD_EXAMPLE)),
    webhook_limit_reached: facts(counted, () => webhookLimitReached(16)),
    invalid_invitation: facts(counted, () => invalidInvitation()),
    staff_exists: facts(counted, () => staffExists('ada@shop.example')),
    last_owner: facts(counted, () => lastOwner(1)),
    // A request signed in with the session cookie, not safe, from another origin or without the session's token.
    csrf_failed: facts(['auth'], () => CSRF_FAILED),
    passkey_refused: facts(counted, () => passkeyRefused('its challenge is unknown, used already or expired; ask for new options')),
    passkey_required: facts(counted, () => PASSKEY_REQUIRED),
    request_timeout: facts(['connection'], () => parseErrorAnswer(parseError('ERR_HTTP_REQUEST_TIMEOUT'))),
    gone: facts(['before-auth'], ({ deprecation }) => {
      if (deprecation === undefined) throw new Error('OpenAPI: only a deprecated operation answers 410 `gone`');
      return pastSunset(deprecation, '/v1');
    }),
    precondition_failed: facts(counted, () => thrownBy(() => assertIfMatch('pet 42', parseCondition('"stale"', 'If-Match'), { id: 42 }))),
    payload_too_large: facts(counted, () => new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE()),
    image_too_large: facts(counted, () => tooManyPixels('20,000 × 20,000 pixels', 40_000_000)),
    unsupported_media_type: facts(counted, () => new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE()),
    idempotency_key_reused: facts(counted, () => idempotencyKeyReused()),
    // An address over its failed-authentication limit is refused before its key is read; a key over its own limit after it was counted.
    rate_limited: facts(['auth', 'counted'], () => keyOverLimit({ limit: 600, windowMs: 60_000 }, { allowed: false, remaining: 0, reset: 42 })),
    request_header_fields_too_large: facts(['connection'], () => parseErrorAnswer(parseError('HPE_HEADER_OVERFLOW'))),
    // Key verification can fail with the database, or unexpectedly.
    internal_error: facts(['auth', 'counted'], () => new Error('a failure whose details stay in the log')),
    not_implemented: facts(['connection'], () => parseErrorAnswer(parseError('HPE_INVALID_METHOD', 'BREW /pot HTTP/1.1\r\n'))),
    // Refused during shutdown before any route hook ran, or the database is unreachable.
    service_unavailable: facts(['before-auth', 'auth', 'counted'], () => new StorageUnavailableError('connection refused')),
    // A request line llhttp cannot read as HTTP/1, or one it reads (HTTP/2.0) that request-target.ts refuses.
    http_version_not_supported: facts(['connection', 'counted'], () => unsupportedVersion('HTTP/2.0')),
  };
}

let built: Promise<Readonly<Record<ErrorCode, ErrorFacts>>> | undefined;

/** The facts of every error code; built once per process (they depend on no configuration). */
export function errorFacts(): Promise<Readonly<Record<ErrorCode, ErrorFacts>>> {
  built ??= build();
  return built;
}
