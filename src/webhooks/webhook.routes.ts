import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { linkNext } from '../paging.ts';
import { bodyErrors, commonErrors, errorResponse, errorText, INVALID_JSON, invalidIds, MALFORMED, PageQuery, prose, UNEXPECTED_BODY } from '../schemas.ts';
import { Deliveries, Delivery, DeliveryIdParams, NewWebhook, Webhook, WebhookIdParams, Webhooks, WebhookUpdate, WebhookWithSecret } from './webhook.schemas.ts';
import type { WebhookService } from './webhook.service.ts';

export interface WebhookRoutesOptions {
  readonly webhooks: WebhookService;
  readonly base: string;
}

const BAD_URL = errorText`a URL that is not \`https:\`, carries credentials or a fragment, or whose host does not resolve only to public addresses (${'webhook_url_not_allowed'})`;
const notFound = errorResponse`No webhook endpoint with this id (${'not_found'})`;
const badId = errorResponse`${invalidIds(['webhookId'])} (${'validation_failed'}); ${MALFORMED}`;
// The operations that take no body: an empty one is none, another must be JSON (json-body.ts).
const badIdOrBody = errorResponse`${invalidIds(['webhookId'])} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`;
const pageErrors = (what: string) =>
  errorResponse`Invalid ${prose(what)}, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for this listing (${'invalid_cursor'}); ${MALFORMED}`;
const SUBSCRIBE_SCOPE = errorResponse`The key lacks \`webhooks:admin\`, or the scope that reads the events subscribed: \`pets:read\` for \`pet.*\` and \`category.*\`, \`orders:read\` for \`order.*\`, both for every type (${'insufficient_scope'})`;
const CHANGE_SCOPE = errorResponse`The key lacks \`webhooks:admin\`, or the scope that reads the events subscribed: \`pets:read\` for \`pet.*\` and \`category.*\`, \`orders:read\` for \`order.*\`, both for every type (${'insufficient_scope'}); the key does not manage the endpoint: only the key that owns it (\`keyId\`), the keys above that key and owner keys change it (${'forbidden'})`;
const NOT_MANAGED = errorText`the key does not manage the endpoint: only the key that owns it (\`keyId\`), the keys above that key and owner keys change it, rotate its secret, delete it or retry its deliveries (${'forbidden'})`;
const MANAGE_SCOPE = errorResponse`The key lacks \`webhooks:admin\` (${'insufficient_scope'}); ${NOT_MANAGED}`;
const RETRY_SCOPE = errorResponse`The key lacks \`webhooks:admin\` (${'insufficient_scope'}); ${NOT_MANAGED}; the endpoint may not be sent this event now: the key that owns it lacks the scope that reads it, or it no longer subscribes to its type (${'forbidden'})`;
// Every operation here: experimental, tag Webhooks, scope webhooks:admin (granted only explicitly).
const common = { tags: ['Webhooks'], 'x-stability': 'experimental' };
const config = { scope: 'webhooks:admin' } as const;

export const webhookRoutes: FastifyPluginAsyncTypebox<WebhookRoutesOptions> = async (app, { webhooks, base }) => {
  const location = (webhook: Webhook) => `${base}/webhooks/${webhook.id}`;

  app.post(
    '/webhooks',
    {
      config,
      schema: {
        ...common,
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint',
        description:
          "Every event of the chosen types (all types without `events`) is POSTed to `url`, signed per Standard Webhooks 1.0 with the `secret` returned here — and only here: store it. See the `webhooks` section of this document and the [events guide](/docs/events.md). The calling key must be able to read what it subscribes to (`pets:read` for `pet.*` and `category.*`, `orders:read` for `order.*`, both for every type) and becomes the endpoint's owner (`keyId`): when it is revoked or expires, the endpoint is disabled. A store has at most `WEBHOOK_MAX_ENDPOINTS` endpoints (16 by default). `Idempotency-Key` is not supported: its stored response would hold the secret; list the endpoints to find one whose creation you are unsure of.",
        body: NewWebhook,
        response: {
          201: { ...WebhookWithSecret, description: 'Endpoint registered; `Location` names it. The only response that shows this secret' },
          400: errorResponse`Missing or invalid fields, an unknown field, event type or query parameter (${'validation_failed'}); ${INVALID_JSON}; ${BAD_URL}; ${MALFORMED}`,
          409: errorResponse`The store has \`WEBHOOK_MAX_ENDPOINTS\` endpoints already (${'webhook_limit_reached'})`,
          ...bodyErrors,
          ...commonErrors,
          403: SUBSCRIBE_SCOPE,
        },
      },
    },
    async (request, reply) => {
      const webhook = await webhooks.create(request.body, request.principal!);
      return reply.code(201).header('location', location(webhook)).send(webhook);
    },
  );

  app.get(
    '/webhooks',
    {
      config,
      schema: {
        ...common,
        operationId: 'listWebhooks',
        summary: 'List webhook endpoints',
        description: 'A page of endpoints, ascending by id; paged like `GET /pets` (`Link: rel="next"`). Secrets are never shown.',
        querystring: PageQuery,
        response: { 200: { ...Webhooks, description: 'A page of endpoints' }, 400: pageErrors('`limit` or `cursor`'), ...commonErrors },
      },
    },
    async (request, reply) => {
      const page = await webhooks.list(request.query);
      linkNext(reply, page, base, '/webhooks', { limit: request.query.limit });
      return page.items;
    },
  );

  app.get(
    '/webhooks/:webhookId',
    {
      config,
      schema: {
        ...common,
        operationId: 'getWebhook',
        summary: 'Get a webhook endpoint',
        params: WebhookIdParams,
        response: { 200: { ...Webhook, description: 'The endpoint' }, 400: badId, 404: notFound, ...commonErrors },
      },
    },
    async (request) => webhooks.get(request.params.webhookId),
  );

  app.patch(
    '/webhooks/:webhookId',
    {
      config,
      schema: {
        ...common,
        operationId: 'updateWebhook',
        summary: 'Change a webhook endpoint',
        description:
          'Changes any of `url`, `events` (`null` = every type), `description` (`null` removes it) and `enabled`. Disabling drops the deliveries still pending; enabling resumes with events recorded from then on (replay the rest from `GET /events?after=…`). The calling key must manage the endpoint (its owner key, a key above it, or an owner key), must be able to read every event type the endpoint subscribes to after the change, and becomes its owner (`keyId`). A new `url` is sent nothing owed to the old one: the pending deliveries are dropped.',
        params: WebhookIdParams,
        body: WebhookUpdate,
        response: {
          200: { ...Webhook, description: 'The endpoint after the change' },
          400: errorResponse`Invalid \`webhookId\` or body field, an empty body, an unknown field or query parameter (${'validation_failed'}); ${INVALID_JSON}; ${BAD_URL}; ${MALFORMED}`,
          404: notFound,
          ...bodyErrors,
          ...commonErrors,
          403: CHANGE_SCOPE,
        },
      },
    },
    async (request) => webhooks.update(request.params.webhookId, request.body, request.principal!),
  );

  app.delete(
    '/webhooks/:webhookId',
    {
      config,
      schema: {
        ...common,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint',
        description: 'Nothing more is sent to it; its delivery log is deleted with it.',
        params: WebhookIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), 400: badIdOrBody, 404: notFound, ...bodyErrors, ...commonErrors, 403: MANAGE_SCOPE },
      },
    },
    async (request, reply) => {
      await webhooks.delete(request.params.webhookId, request.principal!);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhooks/:webhookId/rotate-secret',
    {
      config,
      schema: {
        ...common,
        operationId: 'rotateWebhookSecret',
        summary: "Replace a webhook endpoint's signing secret",
        description:
          'Issues a new secret, returned here only. For 24 hours deliveries carry two signatures (`v1,<new> v1,<old>`), so the receiver can switch to the new secret at its own pace; then only the new one signs. No request body.',
        params: WebhookIdParams,
        response: {
          200: { ...WebhookWithSecret, description: 'The endpoint and its new secret' },
          400: badIdOrBody,
          404: notFound,
          ...bodyErrors,
          ...commonErrors,
          403: MANAGE_SCOPE,
        },
      },
    },
    async (request) => webhooks.rotateSecret(request.params.webhookId, request.principal!),
  );

  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      config,
      schema: {
        ...common,
        operationId: 'listWebhookDeliveries',
        summary: "List a webhook endpoint's delivery log",
        description:
          'One entry per attempt (the next one, while pending, included) and one per disabling, newest first; paged with `Link: rel="next"`. Entries are kept as long as events (`EVENT_RETENTION_DAYS`).',
        params: WebhookIdParams,
        querystring: PageQuery,
        response: {
          200: { ...Deliveries, description: 'A page of the delivery log, newest first' },
          400: pageErrors('`webhookId`, `limit` or `cursor`'),
          404: notFound,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const { webhookId } = request.params;
      const page = await webhooks.deliveries(webhookId, request.query);
      linkNext(reply, page, base, `/webhooks/${webhookId}/deliveries`, { limit: request.query.limit });
      return page.items;
    },
  );

  app.post(
    '/webhooks/:webhookId/deliveries/:deliveryId/retry',
    {
      config,
      schema: {
        ...common,
        operationId: 'retryWebhookDelivery',
        summary: 'Send the event of a delivery again, now',
        description:
          "Makes the event of this log entry due at once: its pending attempt if it has one (unchanged when it is in flight), otherwise a new attempt with the same `webhook-id`. A new attempt that fails continues the endpoint's retry schedule where the event's last attempt left it. Only an event the endpoint may be sent now: its owner key reads it and it subscribes to its type. No request body.",
        params: DeliveryIdParams,
        response: {
          202: { ...Delivery, description: 'The attempt that will send it' },
          400: errorResponse`${invalidIds(['webhookId', 'deliveryId'])} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: errorResponse`No such endpoint or log entry, the entry records a disabling, or its event is no longer kept (${'not_found'})`,
          409: errorResponse`The endpoint is disabled (${'webhook_disabled'})`,
          ...bodyErrors,
          ...commonErrors,
          403: RETRY_SCOPE,
        },
      },
    },
    async (request, reply) => reply.code(202).send(await webhooks.retry(request.params.webhookId, request.params.deliveryId, request.principal!)),
  );
};
