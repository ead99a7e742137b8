import { ERROR_STATUS, type ErrorCode } from '../../errors.ts';
import { ERROR_CODES_KEY } from '../../schemas.ts';
import { REQUEST_ID } from '../edge/request-id.ts';
import { deprecationHeaders, formDeprecationHeaders, type Deprecation } from '../policies/deprecation.ts';
import type { ErrorFacts, Stage } from './openapi.errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Media types the 200 response may have besides application/json, as OpenAPI content entries (documentation only). */
    alsoContent?: Readonly<Record<string, object>>;
    /** A deprecated form of the request (a body without a member now required): its 201 then carries Deprecation, Sunset and Link (documentation only). */
    formDeprecation?: { readonly deprecatedAt: Date; readonly sunset: Date; readonly form: string };
  }
}

/** What the route says about its responses beyond their schemas. */
export interface ResponseKind {
  readonly deprecation: Deprecation | undefined;
  /** Lists paged with a cursor answer `Link: rel="next"`. */
  readonly paged: boolean;
  /** Creating operations that honour `Idempotency-Key`. */
  readonly idempotent: boolean;
  /** RATE_LIMIT_PER_MINUTE is on: responses to a request with a valid key carry the RateLimit fields. */
  readonly rateLimited: boolean;
  /** Responses carrying one resource carry its ETag (config.etag). */
  readonly etag: boolean;
  /** Answered without an API key (config.public): no key counted, so no RateLimit fields. */
  readonly public?: boolean;
  /** Immutable bytes named by their SHA-256 (config.immutable, the photos): cacheable for a year, the hash is the ETag. */
  readonly immutable?: boolean;
  /** Other media types the 200 response may have (config.alsoContent: the event feed's `text/event-stream`). */
  readonly alsoContent?: Readonly<Record<string, object>>;
  /** A deprecated form of the request (config.formDeprecation). */
  readonly formDeprecation?: { readonly deprecatedAt: Date; readonly sunset: Date; readonly form: string };
}

/** A shared schema (one with an $id) is referenced from components, not repeated inline. */
export function referenced(schema: { $id?: string }): unknown {
  return typeof schema.$id === 'string' ? { $ref: `${schema.$id}#` } : schema;
}

/**
 * Shapes the documented responses; documentation only, the route schemas that serialize replies
 * are untouched. Success bodies built from a shared schema (`{ ...Pet, description }`) reference it.
 * Every error response gets one named example per error code it can carry (the codes the route
 * schema keeps beside its description: errorResponse in schemas.ts), as the service words it
 * (openapi.errors.ts). A response that names no code, or one of another status, is a mistake in
 * the route schema and fails loudly.
 */
export function documentResponses(
  response: Record<string, unknown>,
  kind: ResponseKind,
  errors: Readonly<Record<ErrorCode, ErrorFacts>>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(response).map(([status, value]) => {
      const r = value as { $id?: string; $ref?: string; description?: string; examples?: unknown[]; [ERROR_CODES_KEY]?: readonly ErrorCode[] };
      if (Number(status) < 400) {
        const headers = responseHeaders(Number(status), kind, { stages: [kind.public ? 'auth' : 'counted'], examples: [] });
        // A response without a body (204, 304) is documented by a null schema, and its headers; a
        // download (csv.ts) by its own content and headers, to which the common ones are added.
        if (typeof r.$id !== 'string') return [status, { ...r, headers: { ...headers, ...(r as { headers?: object }).headers } }];
        const example = r.examples?.[0];
        return [
          status,
          {
            description: r.description,
            headers,
            content: {
              'application/json': { schema: referenced(r), ...(example !== undefined && { example }) },
              ...(status === '200' && kind.alsoContent),
            },
          },
        ];
      }
      if (r.$ref !== 'Error#') return [status, value];
      const description = r.description ?? '';
      const codes = r[ERROR_CODES_KEY] ?? [];
      if (codes.length === 0) throw new Error(`OpenAPI: the ${status} response "${description}" names no error code (build it with errorResponse)`);
      const foreign = codes.filter((code) => ERROR_STATUS[code] !== Number(status));
      if (foreign.length > 0) throw new Error(`OpenAPI: the ${status} response "${description}" names ${foreign.join(', ')}, of another status`);
      const examples = codes.map((code) => {
        const example = errors[code].example(kind);
        if (example.code !== code) throw new Error(`OpenAPI: the example of \`${code}\` is a \`${example.code}\` refusal`);
        return example;
      });
      // A public operation counts no key (no RateLimit fields) and sets Cache-Control: no-store on
      // its refusals itself (photo.routes.ts), as authentication does elsewhere: the `auth` stage.
      const stages = kind.public ? (['auth'] as const) : codes.flatMap((code) => errors[code].raised);
      const headers = responseHeaders(Number(status), kind, { stages, examples });
      const named = Object.fromEntries(examples.map(({ code, message }) => [code, { summary: code, value: { code, message, status: Number(status) } }]));
      // The content form lets the media type carry named examples next to the Error reference.
      return [status, { description, headers, content: { 'application/json': { schema: { $ref: 'Error#' }, examples: named } } }];
    }),
  );
}

const ALWAYS = 'x-always-present';

/**
 * A response header. One that is always present names its entry in components.headers, where it
 * is `required: true` and from where every response references it (sharedHeaders).
 */
const header = (always: string | false, description: string, example: string, schema: Record<string, unknown> = {}) => ({
  type: 'string',
  description,
  ...schema,
  examples: [example],
  ...(always !== false && { [ALWAYS]: always }),
});

/** The headers an error carries itself (AppError.headers), as the document describes them. */
const ERROR_HEADERS: Readonly<Record<string, { name: string; description: string; example: string; schema?: Record<string, unknown> }>> = {
  'www-authenticate': { name: 'WWW-Authenticate', description: 'Bearer challenge (RFC 6750)', example: 'Bearer realm="petstore", error="invalid_token"' },
  'retry-after': { name: 'Retry-After', description: 'Seconds to wait before retrying', example: '1', schema: { pattern: '^[0-9]+$' } },
};

/** Whether every, some or none of `items` has the property: a header always, sometimes or never present. */
function presence<T>(items: readonly T[], has: (item: T) => boolean): 'always' | 'sometimes' | 'never' {
  const count = items.filter(has).length;
  return count === 0 ? 'never' : count === items.length ? 'always' : 'sometimes';
}

/**
 * The response headers the service sets (request-id.ts, auth.ts, deprecation.ts, paging.ts, the
 * routes, idempotency.ts, error-handler.ts, connection.ts). An error response carries what was set
 * before the stages that raise its codes (Cache-Control by authentication, the RateLimit fields
 * once the key is counted) and the headers its errors carry themselves (their examples tell).
 */
function responseHeaders(
  status: number,
  kind: ResponseKind,
  raised: { readonly stages: readonly Stage[]; readonly examples: readonly { code: ErrorCode; headers: Readonly<Record<string, string>> }[] },
): Record<string, unknown> {
  const headers: Record<string, unknown> = {
    'X-Request-Id': header(
      'X-Request-Id',
      "Names the request: the client's own `X-Request-Id` when it sent a sane one, else a fresh UUID; quote it when reporting a problem",
      '4f1d2c7e-9a53-4a8e-b1b0-3a5c9f0e6d21',
      {
        pattern: REQUEST_ID.source,
      },
    ),
    'X-Content-Type-Options': header('X-Content-Type-Options', 'Browsers must not guess another content type', 'nosniff', { enum: ['nosniff'] }),
  };
  const cacheControl = presence(raised.stages, (stage) => stage !== 'before-auth');
  if (cacheControl !== 'never') {
    headers['Cache-Control'] = header(cacheControl === 'always' && 'Cache-Control', 'Responses are per API key: no cache keeps them', 'no-store', {
      enum: ['no-store'],
    });
  }
  if (kind.immutable && (status === 200 || status === 304)) {
    headers['Cache-Control'] = header(
      'Immutable-Cache-Control',
      'The bytes never change: any cache may keep them for a year',
      'public, max-age=31536000, immutable',
      {
        enum: ['public, max-age=31536000, immutable'],
      },
    );
    headers.ETag = header(
      'Photo-ETag',
      'Strong entity tag: the SHA-256 of the display image (with `-thumb` for its thumbnail)',
      '"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"',
      {
        pattern: '^"[0-9a-f]{64}(-thumb)?"$',
      },
    );
  }
  if (status === 201) headers.Location = header('Location', 'URL of the created resource', '/v1/pets/1');
  // json-body.ts: a body sent with a content coding is refused, naming the one coding taken (RFC 9110 §15.5.16).
  if (status === 415) {
    headers['Accept-Encoding'] = header(false, 'When the body was refused for its `Content-Encoding`: `identity`, no content coding is accepted', 'identity', {
      enum: ['identity'],
    });
  }
  if (kind.etag && (status === 200 || status === 201 || status === 304)) {
    headers.ETag = header(
      'ETag',
      'Strong entity tag of the resource (RFC 9110 §8.8.3); changes whenever the resource does. Send it in `If-Match` or `If-None-Match`',
      '"kP3v0bLQ7m2mX1Y9Zr4aQw"',
      {
        pattern: '^"[A-Za-z0-9_-]{22}"$',
      },
    );
  }
  if (status === 201 && kind.idempotent) {
    headers['Idempotent-Replayed'] = header(false, 'Present when this is the stored response of an earlier request with the same `Idempotency-Key`', 'true', {
      enum: ['true'],
    });
  }
  if (status === 200 && kind.paged) {
    headers.Link = header(false, '`rel="next"` (RFC 8288) when more results may follow; absent on the last page', '</v1/pets?limit=20&cursor=…>; rel="next"');
  }
  for (const { code, headers: carried } of raised.examples) {
    const unknown = Object.keys(carried).find((name) => ERROR_HEADERS[name] === undefined);
    if (unknown !== undefined) throw new Error(`OpenAPI: \`${code}\` answers with a ${unknown} header the document does not describe`);
  }
  for (const [field, { name, description, example, schema }] of Object.entries(ERROR_HEADERS)) {
    const carrying = raised.examples.filter((e) => e.headers[field] !== undefined);
    const present = presence(raised.examples, (e) => e.headers[field] !== undefined);
    if (present === 'always') headers[name] = header(name, description, example, schema);
    if (present === 'sometimes') {
      const which = carrying.map((e) => `\`${e.code}\``).join(' or ');
      headers[name] = header(false, `With ${which}: ${description[0].toLowerCase()}${description.slice(1)}`, example, schema);
    }
  }
  const rateLimit = presence(raised.stages, (stage) => stage === 'counted');
  if (kind.rateLimited && rateLimit !== 'never') {
    const always = rateLimit === 'always';
    headers['RateLimit-Policy'] = header(
      always && 'RateLimit-Policy',
      "The API key's quota (IETF httpapi RateLimit fields): `q` requests per `w` seconds",
      '"default";q=600;w=60',
      {
        pattern: '^"default";q=[0-9]+;w=[0-9]+$',
      },
    );
    headers.RateLimit = header(always && 'RateLimit', 'What is left of the quota: `r` requests, for `t` more seconds', '"default";r=599;t=42', {
      pattern: '^"default";r=[0-9]+;t=[0-9]+$',
    });
  }
  if (kind.deprecation) {
    const example = deprecationHeaders(kind.deprecation, '/v1', '/docs');
    headers.Deprecation = header('Deprecation', 'When the operation was deprecated (RFC 9745)', example.deprecation);
    headers.Sunset = header('Sunset', 'When the operation stops working (RFC 8594); from then on it answers 410', example.sunset);
    headers.Link = header('Deprecation-Link', 'The successor operation (`rel="successor-version"`) and the documentation (`rel="deprecation"`)', example.link);
  }
  if (kind.formDeprecation && status === 201) {
    const example = formDeprecationHeaders(kind.formDeprecation, '/docs');
    const when = `With ${kind.formDeprecation.form}`;
    headers.Deprecation = header(false, `${when}: when that form was deprecated (RFC 9745)`, example.deprecation);
    headers.Sunset = header(false, `${when}: when that form is refused (RFC 8594)`, example.sunset);
    headers.Link = header(false, `${when}: the documentation (\`rel="deprecation"\`)`, example.link);
  }
  return headers;
}

type HeaderObject = { schema: Record<string, unknown>; description?: string; required?: boolean } | { $ref: string };

/**
 * Moves each always-present response header to components.headers, `required: true` there (the
 * header object, not its schema, carries it), and references it from every response.
 */
export function sharedHeaders<T>(document: T): T {
  const doc = document as {
    paths?: Record<string, Record<string, { responses?: Record<string, { headers?: Record<string, HeaderObject> }> }>>;
    components?: { headers?: Record<string, HeaderObject> };
  };
  const shared: Record<string, HeaderObject> = {};
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      for (const response of Object.values(op.responses ?? {})) {
        for (const [name, h] of Object.entries(response.headers ?? {})) {
          if (!('schema' in h)) continue;
          const id = h.schema[ALWAYS];
          if (typeof id !== 'string') continue;
          delete h.schema[ALWAYS];
          shared[id] ??= { ...h, required: true };
          response.headers![name] = { $ref: `#/components/headers/${id}` };
        }
      }
    }
  }
  doc.components = { ...doc.components, headers: Object.fromEntries(Object.entries(shared).sort(([a], [b]) => a.localeCompare(b))) };
  return document;
}

// Answers about the HTTP exchange rather than the operation (a request not received in time, too
// large a header, an HTTP version other than 1.x, an unexpected failure): the same for every
// operation, so each operation's `default` response states them once, after the answers that
// depend on it (docs/reference.md, "Responses").
const EXCHANGE_STATUSES = ['408', '431', '500', '505'] as const;
const EXCHANGE_ERROR = 'ExchangeError';

type ResponseObject = {
  description: string;
  headers?: Record<string, HeaderObject>;
  content: { 'application/json': { schema: unknown; examples: Record<string, unknown> } };
};

/**
 * Moves the exchange errors of every operation into one `components.responses` entry that each
 * operation's `default` references: its description lists each status with its own description,
 * its examples are theirs (each example names its status), its headers those all of them carry on
 * every operation (an operation's own headers, getPet's deprecation fields, are on its other
 * answers). Operations whose exchange errors are described differently would be misdescribed by
 * one entry: that fails loudly.
 */
export function groupExchangeErrors<T>(document: T): T {
  const doc = document as {
    paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
    components?: { responses?: Record<string, unknown> };
  };
  let shared: ResponseObject | undefined;
  let headers: Record<string, HeaderObject> | undefined;
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      const responses = op.responses;
      if (responses === undefined || !EXCHANGE_STATUSES.some((status) => status in responses)) continue;
      const grouped = EXCHANGE_STATUSES.map((status) => responses[status] as ResponseObject | undefined);
      if (grouped.some((r) => r === undefined))
        throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} documents only some of ${EXCHANGE_STATUSES.join(', ')}`);
      for (const r of grouped as ResponseObject[]) {
        headers = Object.fromEntries(Object.entries(headers ?? r.headers ?? {}).filter(([name, h]) => JSON.stringify(r.headers?.[name]) === JSON.stringify(h)));
      }
      const group: ResponseObject = {
        description: [
          'A failure of the HTTP exchange itself, the same for every operation, with the `Error` body:',
          ...EXCHANGE_STATUSES.map((status, i) => `- **${status}**: ${(grouped[i] as ResponseObject).description}`),
        ].join('\n'),
        content: {
          'application/json': {
            schema: (grouped[0] as ResponseObject).content['application/json'].schema,
            examples: Object.assign({}, ...(grouped as ResponseObject[]).map((r) => r.content['application/json'].examples)),
          },
        },
      };
      shared ??= group;
      if (JSON.stringify(group) !== JSON.stringify(shared))
        throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} describes the exchange errors differently`);
      for (const status of EXCHANGE_STATUSES) delete responses[status];
      responses.default = { $ref: `#/components/responses/${EXCHANGE_ERROR}` };
    }
  }
  if (shared !== undefined) {
    const response = { description: shared.description, headers, content: shared.content };
    doc.components = { ...doc.components, responses: { ...doc.components?.responses, [EXCHANGE_ERROR]: response } };
  }
  return document;
}
