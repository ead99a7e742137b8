import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { JSON_TYPE } from '../json.ts';
import { linkNext } from '../paging.ts';
import { commonErrors, errorResponse, MALFORMED, prose } from '../schemas.ts';
import { Events, ListEventsQuery, serializeEvent } from './event.schemas.ts';
import type { EventService } from './event.service.ts';
import type { EventStreams } from './event.stream.ts';

export interface EventRoutesOptions {
  readonly events: EventService;
  readonly streams: EventStreams;
  readonly base: string;
}

/** Whether `Accept` asks for `text/event-stream` (with a q above 0): the feed is then answered as a stream. */
export function wantsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'text/event-stream') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

export const eventRoutes: FastifyPluginAsyncTypebox<EventRoutesOptions> = async (app, { events, streams, base }) => {
  const { pollMs, heartbeatMs, perKey } = streams.settings;
  const live =
    '\n\n**Live**: with `Accept: text/event-stream` the answer is a Server-Sent Events stream of the same events under the same rule, resuming after `Last-Event-ID` (what an EventSource sends when it reconnects) or `after`; it reads the feed every ' +
    pollMs / 1000 +
    ' s and sends a comment at least every ' +
    heartbeatMs / 1000 +
    ' s. A stream is one request: counted once against the rate limit and logged once, when it ends. At most ' +
    perKey +
    ' streams per key are open on one instance (429 beyond). The stream ends when the service shuts down; reconnect with `Last-Event-ID`.';
  app.get(
    '/events',
    {
      config: {
        scope: 'events:read',
        streams: true,
        alsoContent: {
          'text/event-stream': {
            schema: {
              type: 'string',
              description: `Sent when \`Accept\` asks for \`text/event-stream\`: a Server-Sent Events stream of the same events, one message each (\`id:\` the event id, \`event:\` its type, \`data:\` the item's JSON), from the event after \`Last-Event-ID\` (or \`after\`).`,
            },
            example:
              'id: evt_42\nevent: pet.created\ndata: {"id":"evt_42","type":"pet.created","createdAt":"2026-11-22T12:00:00.000Z","data":{"id":1,"name":"Rex"}}\n\n',
          },
        },
      },
      schema: {
        operationId: 'listEvents',
        tags: ['Events'],
        summary: 'List events',
        description:
          'Every change to pets, orders, categories, holds and customers the calling key may read, ascending by id — the order in which the changes committed — kept `EVENT_RETENTION_DAYS` (30 by default). Paged like `GET /pets` (`Link: <…>; rel="next"` while more follow). To resume later, or to replay what a webhook endpoint missed, pass `after` = the last event id you processed. Each item is byte for byte the body of the webhook deliveries of that event (the [events guide](/docs/events.md)). An event is read with the scope that reads its resource: `pet.health.*` take `health:read`, the other `pet.*` and `category.*` take `pets:read`, `order.*` and `hold.*` take `orders:read`, `customer.*` take `customers:read`; without `type` the others are left out, a `type` the key cannot read is refused (403). `petId` narrows the feed to the history of one animal (its `pet.*`, `pet.health.*`, `order.*` and `hold.*` events, under the same rule), read through an index.' +
          live,
        'x-stability': 'experimental',
        querystring: ListEventsQuery,
        response: {
          200: { ...Events, description: 'A page of events' },
          400: errorResponse`Invalid \`limit\`, \`type\`, \`petId\`, \`after\` or \`cursor\`, both \`after\` and \`cursor\`, a stream asked with \`cursor\` or with a \`Last-Event-ID\` that is not an event id, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for these filters (${'invalid_cursor'}); ${MALFORMED}`,
          ...commonErrors,
          429: errorResponse`Too many requests for this key, or too many failed authentications from this address; or, for a stream, ${prose(String(perKey))} streams of this key open on this instance already (${'rate_limited'})`,
          403: errorResponse`The key lacks \`events:read\`, or the scope that reads the events of \`type\`: \`pets:read\` for \`pet.*\` and \`category.*\`, \`orders:read\` for \`order.*\` (${'insufficient_scope'})`,
        },
      },
    },
    async (request, reply) => {
      if (wantsEventStream(request.headers.accept)) {
        const caller = request.principal!;
        const lastEventId = request.headers['last-event-id'];
        const stream = await streams.open(caller.subject, request.query, caller.scopes, {
          lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
          response: reply.raw,
          onError: (err) => request.log.warn({ err }, 'an event stream failed to read the feed and was ended'),
        });
        // no-transform: a proxy that compresses or buffers would hold the messages back.
        return reply
          .header('cache-control', 'no-store, no-transform')
          .type('text/event-stream; charset=utf-8')
          .send(stream as never);
      }
      const page = await events.list(request.query, request.principal!.scopes);
      const { limit, type, petId } = request.query;
      linkNext(reply, page, base, '/events', { limit, type, petId });
      // The items are sent as their one serialization (serializeEvent), which webhook bodies share.
      const body = `[${page.items.map(serializeEvent).join(',')}]`;
      return reply.type(JSON_TYPE).send(body as unknown as typeof page.items);
    },
  );
};
