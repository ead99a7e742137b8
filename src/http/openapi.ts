import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { deprecationHeaders, type Deprecation } from './deprecation.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../schemas.ts';
import { REQUEST_ID } from './request-id.ts';
import { EVENT_SCHEMAS } from '../events/event.schemas.ts';
import { DEFAULT_SCOPES, SCOPES } from '../keys/key.types.ts';
import { DeliveryHeaders } from '../webhooks/webhook.schemas.ts';

export const API_VERSION = '1.0.0';

/** The operation's extension that lists the scopes its API key needs (all of them). */
export const SCOPES_EXTENSION = 'x-required-scopes';

/**
 * The OpenAPI 3.1 document is generated from the route schemas (the same objects that validate
 * requests and serialize responses). Shared schemas are referenced by $id and land in
 * components.schemas under that name.
 */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  // Without PUBLIC_BASE_URL the document names the server that serves it, whatever that is.
  const servers = [config.publicBaseUrl ? { url: config.publicBaseUrl, description: 'Production' } : { url: '/v1', description: 'This server' }];
  if (config.stagingBaseUrl) servers.push({ url: config.stagingBaseUrl, description: 'Staging' });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Pet Store API',
        version: API_VERSION,
        description: [
          'Lists, creates, changes and withdraws animals and their categories, sells them through store orders, counts the inventory, and issues API keys; records every change as an event, readable from a feed and pushed to registered webhook endpoints (the `webhooks` section describes those requests). Every operation needs an API key sent as `Authorization: Bearer <key>`. Every error has the body `{code, message, status}`; its `code` is one of those the `Error` schema lists, each explained in the [API guide](/docs/api.md), which also states the rules below in full. Each operation lists the answers that depend on it; the failures of the HTTP exchange itself (408, 431, 500, 505), the same for every operation, are its `default` response. Responses carrying one animal or order have a strong `ETag`: send it in `If-Match` to change only what you saw, or in `If-None-Match` to re-read only what changed.',
          'Requests are read strictly: an integer path or query parameter is written in decimal digits, without sign, leading zeros or exponent; an operation takes only the query parameters it documents, each at most once; paths have no trailing slash; a request has exactly one valid `Host`; JSON bodies are UTF-8 without a byte-order mark and name each member of an object once. Anything else is refused with 400 (404 for a trailing slash).',
        ].join('\n\n'),
        contact: { name: 'Pet Store service team' },
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers,
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: `API key (\`pst_…\`), issued with \`petstore keys create\` or \`POST /keys\`. Keys carry scopes (${SCOPES.join(', ')}); a new key gets ${DEFAULT_SCOPES.join(', ')} unless others are named — the others only when named. An operation's required scope is named in its description and in its \`${SCOPES_EXTENSION}\` list; a key without it gets 403 \`insufficient_scope\`.`,
          },
        },
      },
      security: [{ bearerAuth: [] }],
      tags: [
        { name: 'Pets', description: 'Animals offered in the store, and their categories' },
        { name: 'Store', description: 'Orders: how an animal moves from available to pending to sold; the inventory' },
        { name: 'Events', description: 'Every change, as a feed: replay what a webhook endpoint missed' },
        { name: 'Webhooks', description: 'Endpoints that receive every change as a signed POST (Standard Webhooks 1.0), and their delivery logs' },
        { name: 'Keys', description: 'API keys: issue, inspect and revoke them (scope `keys:admin`)' },
      ],
      'x-tagGroups': [
        { name: 'Store', tags: ['Store'] },
        { name: 'Pets', tags: ['Pets'] },
        { name: 'Events', tags: ['Events', 'Webhooks'] },
        { name: 'Administration', tags: ['Keys'] },
      ],
      webhooks: webhooksSection(),
    } as never,
    // Response headers always present become shared components, `required: true` (see header()).
    transformObject: (documents) => groupExchangeErrors(sharedHeaders((documents as { openapiObject: object }).openapiObject)),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => {
      if (!schema || (schema as { hide?: boolean }).hide) return { schema, url };
      const scope = route.config?.scope;
      const note = scope ? `\n\nRequires scope \`${scope}\`.` : '';
      const description = `${(schema as { description?: string }).description ?? ''}${note}`.trim();
      // The scope stays out of the security requirement: OpenAPI gives scopes to OAuth2 and OpenID
      // Connect schemes, and the key is a plain bearer token (docs/reference.md, "Scopes").
      const security = route.config?.public ? [] : [{ bearerAuth: [] }];
      const {
        body,
        response,
        querystring,
        headers: requestHeaders,
      } = schema as {
        body?: { $id?: string };
        response?: Record<string, unknown>;
        querystring?: { properties?: object };
        headers?: { properties?: Record<string, object> };
      };
      const headers: ResponseKind = {
        deprecation: route.config?.deprecation,
        paged: querystring?.properties !== undefined && 'cursor' in querystring.properties,
        idempotent: route.config?.idempotent === true,
        rateLimited: config.rateLimitPerMinute > 0,
        etag: route.config?.etag === true,
      };
      return {
        schema: {
          ...schema,
          description,
          security,
          ...(scope && { [SCOPES_EXTENSION]: [scope] }),
          ...(body && { body: referenced(body) }),
          ...(requestHeaders && { headers: documentedRequestHeaders(requestHeaders) }),
          ...(response && { response: documentResponses(response, headers) }),
        } as never,
        url,
      };
    },
  });
  app.get('/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}

/**
 * The OpenAPI 3.1 `webhooks` section: one POST per event type, as the service sends it to a
 * registered endpoint — the body is that type's event schema (the same one the feed's items
 * follow), the headers are DeliveryHeaders (Content-Type is the media type's).
 */
function webhooksSection(): Record<string, unknown> {
  const parameters = Object.entries(DeliveryHeaders.properties)
    .filter(([name]) => name !== 'content-type')
    .map(([name, header]) => {
      const { description, ...schema } = header as unknown as { description: string };
      return { name, in: 'header', required: true, description, schema };
    });
  return Object.fromEntries(
    EVENT_SCHEMAS.map((schema) => {
      // TypeBox types do not declare the options an object schema was made with.
      const event = schema as unknown as { $id: string; description: string; examples: unknown[]; properties: { type: { const: string } } };
      const type = event.properties.type.const;
      return [
        type,
        {
          post: {
            // Generators name the receiving handler after it: pet.created → petCreatedWebhook.
            operationId: `${type.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase())}Webhook`,
            summary: type,
            description: `${event.description} Sent to every enabled endpoint subscribed to \`${type}\`, signed per Standard Webhooks 1.0; retried on failure (the [events guide](/docs/events.md)).`,
            tags: ['Webhooks'],
            security: [],
            parameters,
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: `#/components/schemas/${event.$id}` }, example: event.examples[0] } },
            },
            responses: {
              '2XX': { description: 'Received. Any 2xx within `WEBHOOK_TIMEOUT_MS` (10 s by default) counts as delivered; the body is ignored' },
              default: {
                description: 'Anything else — another status, a redirect (not followed), no answer in time — is a failed attempt, retried on the schedule',
              },
            },
          },
        },
      ];
    }),
  );
}

// Example messages as the service words them; a code missing here falls back to the response description.
const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  validation_failed: 'body field "name" must be at least 1 character long',
  invalid_json: 'request body is not valid JSON',
  unknown_category: 'body/categoryId 42 is not a known category (see GET /v1/categories)',
  unknown_pet: 'body/petId 42 is not a known pet',
  pet_has_open_order: 'pet 42 has an open order (placed or approved), so its status cannot be changed; cancel or deliver the order first',
  category_exists: 'a category named "Horses" already exists (names are unique, ignoring case)',
  category_in_use: 'category 7 still has animals; move or withdraw them first',
  precondition_failed: 'If-Match names none of the current entity tags of pet 42; nothing was changed (GET it for its current ETag)',
  invalid_cursor: 'query parameter "cursor" is not a cursor this service issued; use the Link rel="next" URL as given',
  webhook_url_not_allowed: 'body field "url" is not allowed: its host hooks.internal resolves to 10.0.0.7 is private (RFC 1918), not a public address',
  webhook_disabled: 'webhook 3 is disabled; enable it (PATCH {"enabled": true}) before retrying a delivery',
  unauthorized: 'missing Authorization header; send Authorization: Bearer <API key>',
  insufficient_scope: 'this API key lacks the scope pets:write',
  not_found: 'pet 42 does not exist',
  bad_request: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
  pet_not_available: 'pet 42 is pending, not available',
  idempotency_key_in_use: 'a request with this Idempotency-Key is still being processed; retry shortly',
  idempotency_key_reused: 'this Idempotency-Key was already used with a different request body; use a new key for a new request',
  invalid_transition: 'order 7 cannot go from delivered to cancelled (delivered is final)',
  gone: 'this operation was removed on Thu, 05 Dec 2030 00:00:00 GMT; use GET /v1/pets instead',
  payload_too_large: 'request body is larger than the limit',
  unsupported_media_type: 'request body must be sent as Content-Type: application/json',
  rate_limited: 'too many requests; retry after the time in Retry-After',
  internal_error: 'the service failed unexpectedly; the failure is logged with this request id',
  service_unavailable: 'the database is unreachable; retry later',
  request_timeout: 'the request was not received completely in time',
  request_header_fields_too_large: 'the request line and header fields are larger than 16384 bytes',
  http_version_not_supported: 'HTTP/2.0 is not supported; use HTTP/1.1',
};

/** A shared schema (one with an $id) is referenced from components, not repeated inline. */
function referenced(schema: { $id?: string }): unknown {
  return typeof schema.$id === 'string' ? { $ref: `${schema.$id}#` } : schema;
}

/**
 * Shapes the documented responses; documentation only, the route schemas that serialize replies
 * are untouched. Success bodies built from a shared schema (`{ ...Pet, description }`) reference it.
 * Every error response gets one named example per error code it can carry: the codes come from
 * the response description, which names them in backticks (`validation_failed`); a description
 * naming no code of its status is a mistake in the route schema and fails loudly.
 */
function documentResponses(response: Record<string, unknown>, kind: ResponseKind): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(response).map(([status, value]) => {
      const r = value as { $id?: string; $ref?: string; description?: string; examples?: unknown[] };
      const headers = responseHeaders(Number(status), kind);
      if (Number(status) < 400) {
        // A response without a body (204, 304) is documented by a null schema, and its headers.
        if (typeof r.$id !== 'string') return [status, { ...r, headers }];
        const example = r.examples?.[0];
        return [
          status,
          { description: r.description, headers, content: { 'application/json': { schema: referenced(r), ...(example !== undefined && { example }) } } },
        ];
      }
      if (r.$ref !== 'Error#') return [status, value];
      const description = r.description ?? '';
      const codes = [...description.matchAll(/`([a-z_]+)`/g)]
        .map((m) => m[1] as ErrorCode)
        .filter((code) => (ERROR_STATUS[code] as number | undefined) === Number(status));
      if (codes.length === 0) throw new Error(`OpenAPI: the ${status} response "${description}" must name its error code(s) in backticks`);
      const fallback = description.replace(/\s*\([^)]*`[^)]*\)/g, '');
      const examples = Object.fromEntries(
        codes.map((code) => [code, { summary: code, value: { code, message: EXAMPLE_MESSAGES[code] ?? fallback, status: Number(status) } }]),
      );
      // The content form lets the media type carry named examples next to the Error reference.
      return [status, { description, headers, content: { 'application/json': { schema: { $ref: 'Error#' }, examples } } }];
    }),
  );
}

interface ResponseKind {
  readonly deprecation: Deprecation | undefined;
  /** Lists paged with a cursor answer `Link: rel="next"`. */
  readonly paged: boolean;
  /** Creating operations that honour `Idempotency-Key`. */
  readonly idempotent: boolean;
  /** RATE_LIMIT_PER_MINUTE is on: responses to a request with a valid key carry the RateLimit fields. */
  readonly rateLimited: boolean;
  /** Responses carrying one resource carry its ETag (config.etag). */
  readonly etag: boolean;
}

/**
 * The Idempotency-Key request header as http/idempotency.ts reads it: 1–255 printable ASCII
 * characters, bare or as a quoted sf-string (whose quotes are not part of the key). The route
 * schema leaves the check to idempotency.ts (400 `bad_request`); the document states the rule.
 */
function documentedRequestHeaders(headers: { properties?: Record<string, object> }): unknown {
  const key = headers.properties?.['idempotency-key'];
  if (key === undefined) return headers;
  return { ...headers, properties: { ...headers.properties, 'idempotency-key': { ...key, minLength: 1, maxLength: 257, pattern: IDEMPOTENCY_KEY_PATTERN } } };
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

// Statuses whose responses come after the API key was verified and counted, so they carry the
// RateLimit fields; 400 (two Authorization fields are refused before any key is read), 429 (so
// is an address over its failed-authentication limit), 500, 503 and 505 (they can come before
// it) may carry them; 401, 408, 410 and 431 never do.
const COUNTED = new Set([200, 201, 202, 204, 304, 403, 404, 409, 412, 413, 415, 422]);
const MAYBE_COUNTED = new Set([400, 429, 500, 503, 505]);
// Answered before any hook ran (the message could not be parsed) or by the deprecation hook
// before authentication (410): no Cache-Control.
const BEFORE_AUTH = new Set([408, 410, 431]);

/** The response headers the service sets (request-id.ts, auth.ts, deprecation.ts, paging.ts, the routes, idempotency.ts, error-handler.ts, connection.ts). */
function responseHeaders(status: number, kind: ResponseKind): Record<string, unknown> {
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
  if (!BEFORE_AUTH.has(status))
    headers['Cache-Control'] = header('Cache-Control', 'Responses are per API key: no cache keeps them', 'no-store', { enum: ['no-store'] });
  if (status === 201) headers.Location = header('Location', 'URL of the created resource', '/v1/pets/1');
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
  if (status === 401 || status === 403)
    headers['WWW-Authenticate'] = header('WWW-Authenticate', 'Bearer challenge (RFC 6750)', 'Bearer realm="petstore", error="invalid_token"');
  if (status === 429 || status === 503) headers['Retry-After'] = header('Retry-After', 'Seconds to wait before retrying', '1', { pattern: '^[0-9]+$' });
  if (status === 409 && kind.idempotent)
    headers['Retry-After'] = header(false, 'With `idempotency_key_in_use`: seconds to wait before retrying', '1', { pattern: '^[0-9]+$' });
  if (kind.rateLimited && (COUNTED.has(status) || MAYBE_COUNTED.has(status))) {
    const always = COUNTED.has(status);
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
  return headers;
}

type HeaderObject = { schema: Record<string, unknown>; description?: string; required?: boolean } | { $ref: string };

/**
 * Moves each always-present response header to components.headers, `required: true` there (the
 * header object, not its schema, carries it), and references it from every response.
 */
function sharedHeaders<T>(document: T): T {
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
function groupExchangeErrors<T>(document: T): T {
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
