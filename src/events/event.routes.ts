import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { JSON_TYPE } from '../json.ts';
import { linkNext } from '../paging.ts';
import { commonErrors, errorResponse, MALFORMED } from '../schemas.ts';
import { Events, ListEventsQuery, serializeEvent } from './event.schemas.ts';
import type { EventService } from './event.service.ts';

export interface EventRoutesOptions {
  readonly events: EventService;
  readonly base: string;
}

export const eventRoutes: FastifyPluginAsyncTypebox<EventRoutesOptions> = async (app, { events, base }) => {
  app.get(
    '/events',
    {
      config: { scope: 'events:read' },
      schema: {
        operationId: 'listEvents',
        tags: ['Events'],
        summary: 'List events',
        description:
          'Every change to pets, orders and categories the calling key may read, ascending by id — the order in which the changes committed — kept `EVENT_RETENTION_DAYS` (30 by default). Paged like `GET /pets` (`Link: <…>; rel="next"` while more follow). To resume later, or to replay what a webhook endpoint missed, pass `after` = the last event id you processed. Each item is byte for byte the body of the webhook deliveries of that event (the [events guide](/docs/events.md)). An event is read with the scope that reads its resource: `pet.*` and `category.*` take `pets:read`, `order.*` take `orders:read`; without `type` the others are left out, a `type` the key cannot read is refused (403).',
        'x-stability': 'experimental',
        querystring: ListEventsQuery,
        response: {
          200: { ...Events, description: 'A page of events' },
          400: errorResponse`Invalid \`limit\`, \`type\`, \`after\` or \`cursor\`, both \`after\` and \`cursor\`, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for these filters (${'invalid_cursor'}); ${MALFORMED}`,
          ...commonErrors,
          403: errorResponse`The key lacks \`events:read\`, or the scope that reads the events of \`type\`: \`pets:read\` for \`pet.*\` and \`category.*\`, \`orders:read\` for \`order.*\` (${'insufficient_scope'})`,
        },
      },
    },
    async (request, reply) => {
      const page = await events.list(request.query, request.principal!.scopes);
      const { limit, type } = request.query;
      linkNext(reply, page, base, '/events', { limit, type });
      // The items are sent as their one serialization (serializeEvent), which webhook bodies share.
      const body = `[${page.items.map(serializeEvent).join(',')}]`;
      return reply.type(JSON_TYPE).send(body as unknown as typeof page.items);
    },
  );
};
