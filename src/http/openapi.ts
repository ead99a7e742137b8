import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { deprecationHeaders, type Deprecation } from './deprecation.ts';
import { SCOPES } from '../keys/key.types.ts';

export const API_VERSION = '1.0.0';

/**
 * The OpenAPI 3.1 document is generated from the route schemas (the same objects that validate
 * requests and serialize responses). Shared schemas are referenced by $id and land in
 * components.schemas under that name.
 */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  const servers = [{ url: config.publicBaseUrl || '/v1', description: 'Production' }];
  if (config.stagingBaseUrl) servers.push({ url: config.stagingBaseUrl, description: 'Staging' });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Pet Store API',
        version: API_VERSION,
        description:
          'Lists, creates and fetches animals, and sells them through store orders. Every operation needs an API key sent as `Authorization: Bearer <key>`. Every error has the body `{code, message, status}`; the codes are listed in docs/api.md.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers,
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: `API key (\`pst_…\`), issued with \`petstore keys create\`. Keys carry scopes (${SCOPES.join(', ')}; all by default); an operation's required scope is named in its description. A key without it gets 403 \`insufficient_scope\`.`,
          },
        },
      },
      security: [{ bearerAuth: [] }],
      tags: [
        { name: 'Pets', description: 'Animals offered in the store, and their categories' },
        { name: 'Store', description: 'Orders: how an animal moves from available to pending to sold' },
      ],
      'x-tagGroups': [
        { name: 'Store', tags: ['Store'] },
        { name: 'Pets', tags: ['Pets'] },
      ],
    } as never,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => {
      if (!schema || (schema as { hide?: boolean }).hide) return { schema, url };
      const scope = route.config?.scope;
      const note = scope ? `\n\nRequires scope \`${scope}\`.` : '';
      const description = `${(schema as { description?: string }).description ?? ''}${note}`.trim();
      const security = route.config?.public ? [] : [{ bearerAuth: scope ? [scope] : [] }];
      const { body, response, querystring } = schema as { body?: { $id?: string }; response?: Record<string, unknown>; querystring?: { properties?: object } };
      const headers = {
        deprecation: route.config?.deprecation,
        paged: querystring?.properties !== undefined && 'cursor' in querystring.properties,
      };
      return {
        schema: {
          ...schema,
          description,
          security,
          ...(body && { body: referenced(body) }),
          ...(response && { response: documentResponses(response, headers) }),
        } as never,
        url,
      };
    },
  });
  app.get('/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}

// Example messages as the service words them; a code missing here falls back to the response description.
const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  validation_failed: 'body field "name" must be at least 1 character long',
  invalid_json: 'request body is not valid JSON',
  unknown_category: 'body/categoryId 42 is not a known category (see GET /v1/categories)',
  unknown_pet: 'body/petId 42 is not a known pet',
  invalid_cursor: 'query parameter "cursor" is not a cursor this service issued; use the Link rel="next" URL as given',
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
        if (typeof r.$id !== 'string') return [status, value];
        const example = r.examples?.[0];
        return [status, { description: r.description, headers, content: { 'application/json': { schema: referenced(r), ...(example !== undefined && { example }) } } }];
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
}

const header = (description: string, example: string) => ({ type: 'string', description, examples: [example] });

/** The response headers the service sets (auth.ts, deprecation.ts, paging.ts, the routes, error-handler.ts). */
function responseHeaders(status: number, kind: ResponseKind): Record<string, unknown> | undefined {
  const headers: Record<string, unknown> = {};
  if (status === 201) headers.Location = header('URL of the created resource', '/v1/pets/1');
  if (status === 200 && kind.paged) {
    headers.Link = header('`rel="next"` (RFC 8288) when more results may follow; absent on the last page', '</v1/pets?limit=20&cursor=…>; rel="next"');
  }
  if (status === 401 || status === 403) headers['WWW-Authenticate'] = header('Bearer challenge (RFC 6750)', 'Bearer realm="petstore", error="invalid_token"');
  if (status === 503) headers['Retry-After'] = header('Seconds to wait before retrying', '1');
  if (kind.deprecation) {
    const example = deprecationHeaders(kind.deprecation, '/v1', '/docs');
    headers.Deprecation = header('When the operation was deprecated (RFC 9745)', example.deprecation);
    headers.Sunset = header('When the operation stops working (RFC 8594); from then on it answers 410', example.sunset);
    headers.Link = header('The successor operation (`rel="successor-version"`) and the documentation (`rel="deprecation"`)', example.link);
  }
  return Object.keys(headers).length > 0 ? headers : undefined;
}
