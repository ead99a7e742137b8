import { CSRF_HEADER, PLAIN_COOKIE, SECURE_COOKIE } from '../policies/session-cookie.ts';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../schemas.ts';
import { errorFacts } from './openapi.errors.ts';
import { documentResponses, groupExchangeErrors, referenced, sharedHeaders, type ResponseKind } from './openapi.responses.ts';
import { EVENT_SCHEMAS } from '../../events/event.schemas.ts';
import { DEFAULT_SCOPES, SCOPES } from '../../keys/key.types.ts';
import { DeliveryHeaders } from '../../webhooks/webhook.schemas.ts';

export const API_VERSION = '1.0.0';

/** The operation's extension that lists the scopes its API key needs (all of them). */
export const SCOPES_EXTENSION = 'x-required-scopes';

/**
 * The OpenAPI 3.1 document is generated from the route schemas (the same objects that validate
 * requests and serialize responses). Shared schemas are referenced by $id and land in
 * components.schemas under that name. Registered before the routes it documents (the API
 * depends on it): @fastify/swagger collects the routes registered after it. Its own route, the
 * document, follows the error handler and the plugins that observe every route.
 */
export const openApiPlugin = fp(openApi, { name: 'openapi', dependencies: ['error-handler', 'telemetry', 'method-not-allowed'] });

async function openApi(app: FastifyInstance, { config }: { readonly config: Config }): Promise<void> {
  const errors = await errorFacts();
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
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: SECURE_COOKIE,
            description: `A staff session (the console): set by \`POST /sessions\`; \`${PLAIN_COOKIE}\` on plain HTTP to a loopback host. A signed-in person holds the scopes of their role. A request with it that is not GET or HEAD must also send \`Origin\` (this service's) and \`${CSRF_HEADER}\` (the session's \`csrfToken\`), else 403 \`csrf_failed\`. Read only when no \`Authorization\` is sent.`,
          },
        },
      },
      security: [{ bearerAuth: [] }, { sessionCookie: [] }],
      tags: [
        { name: 'Pets', description: 'Animals offered in the store, and their categories' },
        { name: 'Health', description: "Each animal's health log (vaccinations, deworming, examinations, treatments, notes) and the care due" },
        { name: 'Store', description: 'Orders: how an animal moves from available to pending to sold; the inventory' },
        {
          name: 'Customers',
          description:
            'The people and organisations the store sells to: personal data (scopes `customers:read`, `customers:write`), exported and erased on request',
        },
        { name: 'Events', description: 'Every change, as a feed: replay what a webhook endpoint missed' },
        { name: 'Webhooks', description: 'Endpoints that receive every change as a signed POST (Standard Webhooks 1.0), and their delivery logs' },
        { name: 'Keys', description: 'API keys: issue, inspect and revoke them (scope `keys:admin`)' },
        { name: 'Staff', description: 'The people who sign in to the console, their roles and one-time links (scopes `staff:read`, `staff:admin`)' },
        { name: 'Sessions', description: "Signing in as a person: the session cookie, its CSRF token, signing out, one's sessions and password" },
        { name: 'Activity', description: 'Who did what: every write with its actor and what changed (scope `activity:read`)' },
      ],
      'x-tagGroups': [
        { name: 'Store', tags: ['Store', 'Customers'] },
        { name: 'Pets', tags: ['Pets', 'Health'] },
        { name: 'Events', tags: ['Events', 'Webhooks'] },
        { name: 'Administration', tags: ['Keys', 'Staff', 'Sessions', 'Activity'] },
      ],
      webhooks: webhooksSection(),
    } as never,
    // Response headers always present become shared components, `required: true` (openapi.responses.ts).
    transformObject: (documents) => groupExchangeErrors(sharedHeaders((documents as { openapiObject: object }).openapiObject)),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => {
      if (!schema || (schema as { hide?: boolean }).hide) return { schema, url };
      const scope = route.config?.scope;
      const note = scope ? `\n\nRequires scope \`${scope}\`.` : '';
      const description = `${(schema as { description?: string }).description ?? ''}${note}`.trim();
      // The scope stays out of the security requirement: OpenAPI gives scopes to OAuth2 and OpenID
      // Connect schemes, and the key is a plain bearer token (docs/reference.md, "Scopes").
      const security = route.config?.public ? [] : [{ bearerAuth: [] }, { sessionCookie: [] }];
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
      const kind: ResponseKind = {
        deprecation: route.config?.deprecation,
        paged: querystring?.properties !== undefined && 'cursor' in querystring.properties,
        idempotent: route.config?.idempotent === true,
        rateLimited: config.rateLimitPerMinute > 0,
        etag: route.config?.etag === true,
        public: route.config?.public === true,
        immutable: route.config?.immutable === true,
        alsoContent: route.config?.alsoContent,
        formDeprecation: route.config?.formDeprecation,
      };
      return {
        schema: {
          ...schema,
          description,
          security,
          ...(scope && { [SCOPES_EXTENSION]: [scope] }),
          ...(body && { body: referenced(body) }),
          ...(requestHeaders && { headers: documentedRequestHeaders(requestHeaders) }),
          ...(response && { response: documentResponses(response, kind, errors) }),
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

/**
 * The Idempotency-Key request header as http/policies/idempotency.ts reads it: 1–255 printable ASCII
 * characters, bare or as a quoted sf-string (whose quotes are not part of the key). The route
 * schema leaves the check to idempotency.ts (400 `bad_request`); the document states the rule.
 */
function documentedRequestHeaders(headers: { properties?: Record<string, object> }): unknown {
  const key = headers.properties?.['idempotency-key'];
  if (key === undefined) return headers;
  return { ...headers, properties: { ...headers.properties, 'idempotency-key': { ...key, minLength: 1, maxLength: 257, pattern: IDEMPOTENCY_KEY_PATTERN } } };
}
