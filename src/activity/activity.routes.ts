import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { linkNext } from '../paging.ts';
import { commonErrors, errorResponse, MALFORMED } from '../schemas.ts';
import { ActivityCsvQuery, ActivityEntries, ListActivityQuery } from './activity.schemas.ts';
import { ACTIVITY_CSV_HEADER, type ActivityService } from './activity.service.ts';

export interface ActivityRoutesOptions {
  readonly activity: ActivityService;
  readonly base: string;
  readonly retentionDays: number;
}

const FILTERS = '`actor` (`staff:3`, `key:5`), `resource` (`pet:42`), `type` (`pet.updated`), `from` (included) and `to` (excluded) narrow it; they combine.';
const CHANGES_RULE =
  "An entry's `changes` are shown under the events' read rule: those of an event type only to a reader holding the scope that reads it (a customer's, which are personal data, to `customers:read`).";

export const activityRoutes: FastifyPluginAsyncTypebox<ActivityRoutesOptions> = async (app, { activity, base, retentionDays }) => {
  const kept = `Kept \`ACTIVITY_RETENTION_DAYS\` (here ${retentionDays}), never less than the event feed.`;
  app.get(
    '/activity',
    {
      config: { scope: 'activity:read' },
      schema: {
        operationId: 'listActivity',
        tags: ['Activity'],
        summary: 'Who did what',
        description: `Every write — changes to animals, orders, customers, categories and holds, and the writes no event describes (keys, webhook endpoints, staff, sign-ins) — with its actor (the person or the key) and, for an update, what changed; newest first, keyset-paged (\`Link: <…>; rel="next"\`). ${FILTERS} ${CHANGES_RULE} ${kept}`,
        'x-stability': 'experimental',
        querystring: ListActivityQuery,
        response: {
          200: { ...ActivityEntries, description: 'A page of the log, newest first' },
          400: errorResponse`An invalid \`limit\`, \`actor\`, \`resource\`, \`type\`, \`from\`, \`to\` or \`cursor\`, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for these filters (${'invalid_cursor'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const page = await activity.list(request.query, request.principal!.scopes);
      const { limit, actor, resource, type, from, to } = request.query;
      linkNext(reply, page, base, '/activity', { limit, actor, resource, type, from, to });
      return page.items;
    },
  );

  app.get(
    '/activity.csv',
    {
      config: { scope: 'activity:read' },
      schema: {
        operationId: 'exportActivity',
        tags: ['Activity'],
        summary: 'Who did what (CSV)',
        description: `The activity log under the same filters and rules as \`GET /activity\`, whole, newest first, as CSV (RFC 4180: UTF-8, CRLF, a header row): ${ACTIVITY_CSV_HEADER.map((c) => `\`${c}\``).join(', ')}; \`changes\` is the entry's JSON. Streamed a page at a time, so an export of any length takes the same memory. A field a spreadsheet would read as a formula (starting with =, +, -, @) starts with a quote mark.`,
        'x-stability': 'experimental',
        querystring: ActivityCsvQuery,
        response: {
          200: { description: 'The activity log', content: { 'text/csv': { schema: { type: 'string', contentMediaType: 'text/csv' } } } },
          400: errorResponse`An invalid \`actor\`, \`resource\`, \`type\`, \`from\` or \`to\`, or an unknown or repeated query parameter (${'validation_failed'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) =>
      // A stream, which the route's string schema does not type; Fastify sends it as it comes.
      reply
        .type('text/csv; charset=utf-8; header=present')
        .header('content-disposition', 'attachment; filename="activity.csv"')
        .send(Readable.from(activity.csv(request.query, request.principal!.scopes)) as unknown as string),
  );
};
