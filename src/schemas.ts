import { Type, type Static } from 'typebox';
import { ERROR_CODES, type ErrorCode } from './errors.ts';
import { CONDITION_PATTERN } from './preconditions.ts';

/**
 * Free text a client names things with — every name, description and other text field uses this
 * one rule: not blank, and no U+0000 anywhere (PostgreSQL text cannot hold it, so both engines
 * refuse it alike, with a 400). Blank is made only of white space (`\s`) and the default-ignorable
 * code points of the Basic Multilingual Plane (Unicode's Default_Ignorable_Code_Point: soft
 * hyphen, zero-width space and joiners, direction marks and isolates, word joiner, invisible
 * operators, variation selectors, U+FEFF, Hangul fillers…), which display as nothing. They are
 * listed as `\u` escapes, not as `\p{Default_Ignorable_Code_Point}`: a validator that reads the
 * pattern without ECMA-262's `u` flag (Spectral, many generated clients) or a regex engine without
 * `\p{…}` (Python's `re`) would read `\p{…}` as the letters p, D, e, f… and refuse ordinary names.
 * The ignorables above U+FFFF (tag characters, supplementary variation selectors) need the `u`
 * flag to name and are not counted as blank (docs/api.md).
 */
export const TEXT_PATTERN =
  '^[^\\u0000]*[^\\s\\u0000\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFF8][^\\u0000]*$';

/** Free text of at most `max` characters under TEXT_PATTERN, its rule stated in its description. */
export const BoundedText = (max: number, description: string, example: string) =>
  Type.String({
    minLength: 1,
    maxLength: max,
    pattern: TEXT_PATTERN,
    description: `${description}: 1–${max.toLocaleString('en')} characters, not blank, no NUL character`,
    examples: [example],
  });

// int64 identifiers, kept inside the range a JSON number carries exactly (2^53 - 1).
export const Id = (description: string) => Type.Integer({ format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });

/** An instant as the service writes it: RFC 3339, UTC, milliseconds. */
export const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} (RFC 3339, UTC)`, examples: ['2026-11-22T12:00:00.000Z'] });

/** A day, in no time zone: RFC 3339 full-date (`2026-11-22`), a day that exists in its month. */
export const CalendarDate = (description: string) =>
  Type.String({ format: 'date', description: `${description} (RFC 3339 full-date, YYYY-MM-DD)`, examples: ['2026-11-22'] });

export const ErrorBody = Type.Object(
  {
    code: Type.String({
      description: 'Machine-readable error code; stable, each explained in the [API guide](/docs/api.md), "Errors"',
      examples: ['validation_failed'],
      enum: ERROR_CODES,
    }),
    message: Type.String({ description: 'Human-readable description', examples: ['body/name must not be blank'] }),
    status: Type.Integer({ description: 'The HTTP status code', minimum: 400, maximum: 599, examples: [400] }),
    errors: Type.Optional(
      Type.Array(
        Type.Object(
          {
            in: Type.Union([Type.Literal('body'), Type.Literal('query'), Type.Literal('path'), Type.Literal('header')], {
              description: 'Where the field is: a body field, a query or path parameter, a header field',
            }),
            field: Type.String({
              description:
                'The field as a client names it: `name`, `tags[0]`, `price.amount` (body), `limit` (query), `If-Match` (header); empty for the body as a whole',
              examples: ['tags[0]'],
            }),
            rule: Type.String({
              description:
                'The rule broken: the JSON Schema keyword (`required`, `pattern`, `minLength`, `maximum`, `enum`, `type`, `format`, `additionalProperties`, …), `formatMinimum`/`formatMaximum` for an instant out of its range, `const` for a value that has only one allowed, `repeated` for a parameter given twice, `exclusive` for two parameters that cannot be used together',
              examples: ['pattern'],
            }),
            message: Type.String({
              description: 'The rule in words for people, to show beside the field',
              examples: ['a tag is lowercase letters, digits and hyphens, up to 32'],
            }),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          description:
            'Only with `validation_failed`, which always has it: the rule the request broke (the first one found), for a client to show beside its input. `message` above stays the exact text for programmers.',
        },
      ),
    ),
  },
  {
    $id: 'Error',
    additionalProperties: false,
    description: 'The one error body of every error response',
    examples: [
      {
        code: 'validation_failed',
        message: 'body field "tags.0" must match ^[a-z0-9-]{1,32}$',
        status: 400,
        errors: [{ in: 'body', field: 'tags[0]', rule: 'pattern', message: 'a tag is lowercase letters, digits and hyphens, up to 32' }],
      },
    ],
  },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Maximum number of items returned' });
export const Cursor = Type.String({
  minLength: 1,
  maxLength: 512,
  description: 'Opaque position from a previous page\'s `Link: rel="next"`; never build it by hand',
});
/** The query of a listing without filters: its page size and position. */
export const PageQuery = Type.Object({ limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) }, { additionalProperties: false });
export type PageQuery = Static<typeof PageQuery>;

/** Prose about errors, and the error codes it names (in order, each once). */
export interface ErrorText {
  readonly text: string;
  readonly codes: readonly ErrorCode[];
}

/** Where an error response schema keeps the codes it can carry: the OpenAPI document gives each an example (http/ops/openapi.responses.ts). */
export const ERROR_CODES_KEY = 'x-error-codes';

/**
 * Tags a template of prose about errors: each `${'code'}` in it is an error code — written as
 * \`code\` in the text and kept as data — and each `${text}` is prose built the same way, whose
 * codes it takes over.
 */
export function errorText(strings: TemplateStringsArray, ...parts: readonly (ErrorCode | ErrorText)[]): ErrorText {
  let text = strings[0];
  const codes = new Set<ErrorCode>();
  parts.forEach((part, i) => {
    if (typeof part === 'string') {
      codes.add(part);
      text += `\`${part}\``;
    } else {
      for (const code of part.codes) codes.add(code);
      text += part.text;
    }
    text += strings[i + 1];
  });
  return { text, codes: [...codes] };
}

/** Prose that names no error code, for a template of errorText or errorResponse. */
export const prose = (text: string): ErrorText => ({ text, codes: [] });

/**
 * An error response of a route schema (tagged like errorText): the Error body, described by the
 * prose, with the codes the prose names kept beside it as data.
 */
export function errorResponse(strings: TemplateStringsArray, ...parts: readonly (ErrorCode | ErrorText)[]) {
  const { text, codes } = errorText(strings, ...parts);
  return Type.Unsafe<ErrorBody>({ $ref: 'Error#', description: text, [ERROR_CODES_KEY]: codes });
}

/** Error responses every authenticated operation can return. */
export const commonErrors = {
  401: errorResponse`API key missing or invalid (${'unauthorized'})`,
  403: errorResponse`The key lacks the scope this operation needs (${'insufficient_scope'})`,
  408: errorResponse`The request was not received completely within the configured time (${'request_timeout'}); the connection is closed`,
  429: errorResponse`Too many requests for this key, or too many failed authentications from this address (${'rate_limited'})`,
  431: errorResponse`The request line and header fields are larger than 16 KiB (${'request_header_fields_too_large'}); the connection is closed`,
  500: errorResponse`Unexpected failure (${'internal_error'}); details are logged, never returned`,
  503: errorResponse`The database is unreachable, or the service is shutting down (${'service_unavailable'}); retry after \`Retry-After\``,
  505: errorResponse`The request line names an HTTP version other than 1.x (${'http_version_not_supported'})`,
} as const;

/** What any request can be refused for before its operation looks at it (request-target.ts, auth.ts): part of every 400. */
export const MALFORMED = errorText`a malformed request (${'bad_request'}: \`Host\`, \`Authorization\` or \`Content-Type\` twice, percent-encoding)`;

/** What the JSON body parser refuses (http/edge/json-body.ts): part of the 400 of every operation that takes a body. */
export const INVALID_JSON = errorText`a body that is not JSON, not UTF-8, has a byte-order mark, a member named twice or one named \`__proto__\` (or \`prototype\` inside \`constructor\`) (${'invalid_json'})`;

/** The same for an operation that takes no body. */
export const UNEXPECTED_BODY = errorText`a body (none is expected; an empty one is none) that is not JSON (${'invalid_json'})`;

/** The start of a 400: path `ids` that fail their Id schema, a query parameter, and the operation's conditional `header`, if any. */
export function invalidIds(ids: readonly string[], header?: string): ErrorText {
  const what = `${ids.map((id) => `\`${id}\``).join(' or ')} is not an integer between 1 and 2^53-1 written in decimal digits`;
  return prose(header === undefined ? `${what}, or a query parameter was sent` : `${what}, a query parameter was sent, or a malformed \`${header}\``);
}

/** The 304 of the conditional reads (http/policies/conditional.ts `tagged`). */
export const notModified = { type: 'null', description: 'Not modified: `If-None-Match` names the current `ETag`; no body' } as const;

/** Error responses of every operation that takes a body. */
export const bodyErrors = {
  413: errorResponse`Request body larger than the limit (${'payload_too_large'})`,
  415: errorResponse`Body not sent as application/json, or sent with a \`Content-Encoding\` (${'unsupported_media_type'}; then \`Accept-Encoding: identity\`)`,
} as const;

/** The same for the PATCH operations that take a JSON merge patch (RFC 7396). */
export const mergePatchBodyErrors = {
  413: bodyErrors[413],
  415: errorResponse`Body sent as neither application/merge-patch+json nor application/json, or with a \`Content-Encoding\` (${'unsupported_media_type'}; then \`Accept-Encoding: identity\`)`,
} as const;

/**
 * What http/policies/idempotency.ts accepts as an Idempotency-Key: 1–255 printable ASCII characters, bare
 * or as a quoted sf-string (`""` is not a key). The OpenAPI document states it (openapi.ts).
 */
export const IDEMPOTENCY_KEY_PATTERN = '^(?!""$)(?:[\\x20-\\x7e]{1,255}|"[\\x20-\\x7e]{1,255}")$';

/** The Idempotency-Key request header of the creating operations (checked in http/policies/idempotency.ts). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): 1–255 printable ASCII characters, bare or as a quoted string, unique per request, scoped to your API key. A repeat with the same key and body within 24 h returns the first response with `Idempotent-Replayed: true` and creates nothing.',
      examples: ['4f1d2c7e-9a53-4a8e-b1b0-3a5c9f0e6d21'],
    }),
  ),
});

export const idempotencyErrors = {
  422: errorResponse`The \`Idempotency-Key\` was already used with a different body (${'idempotency_key_reused'})`,
} as const;

/** If-Match of the conditional writes (evaluated by the storage engines, see preconditions.ts). */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'Makes the write conditional (RFC 9110 §13.1.1): `*` (the resource exists) or a comma-separated list of entity tags from `ETag`. When none is the current one — compared strongly, so a weak `W/"…"` tag never matches — the answer is 412 `precondition_failed` and nothing changes. A value that is neither (an unquoted tag, say) is refused with 400 `validation_failed`.',
      pattern: CONDITION_PATTERN,
      examples: ['"kP3v0bLQ7m2mX1Y9Zr4aQw"'],
    }),
  ),
});

/** If-None-Match of the conditional reads. */
export const IfNoneMatchHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({
      description:
        'Makes the read conditional (RFC 9110 §13.1.2): `*` or a comma-separated list of entity tags from `ETag` (compared weakly, so `W/"x"` matches `"x"`). When one is the current one, the answer is 304 with no body. A value that is neither (an unquoted tag, say) is refused with 400 `validation_failed`.',
      pattern: CONDITION_PATTERN,
      examples: ['"kP3v0bLQ7m2mX1Y9Zr4aQw"'],
    }),
  ),
});

export const preconditionErrors = {
  412: errorResponse`\`If-Match\` names none of the current entity tags (${'precondition_failed'}); nothing changed — GET the resource for its current \`ETag\``,
} as const;
