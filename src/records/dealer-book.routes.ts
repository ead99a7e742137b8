import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CSV_TYPE } from '../csv.ts';
import { invalid } from '../errors.ts';
import { CalendarDate, commonErrors, errorResponse, MALFORMED } from '../schemas.ts';
import { dealerBook, DEALER_BOOK_HEADER } from './dealer-book.ts';
import type { DealerBookRepository } from './dealer-book.store.ts';

const DealerBookQuery = Type.Object(
  {
    from: CalendarDate("The period's first day (UTC)"),
    to: CalendarDate("The period's last day (UTC), included; not before `from`"),
  },
  { additionalProperties: false },
);

const DAY_MS = 24 * 60 * 60 * 1000;

export const dealerBookRoutes: FastifyPluginAsyncTypebox<{ readonly book: DealerBookRepository }> = async (app, { book }) => {
  app.get(
    '/records/dealer-book',
    {
      config: { scope: 'customers:read' },
      schema: {
        operationId: 'getDealerBook',
        tags: ['Store'],
        summary: "The dealer's record book of a period (CSV)",
        description: `Every animal acquired (on its record's \`acquiredAt\`; without one, the day it was added) or disposed of (its order delivered) from \`from\` to \`to\` (UTC days, both included), withdrawn animals too, one row each in id order, as CSV (RFC 4180: UTF-8, CRLF, a header row): ${DEALER_BOOK_HEADER.map((c) => `\`${c}\``).join(', ')}. Record members an animal lacks are empty. Streamed a page of animals at a time, so a book of any length takes the same memory. It names buyers, so it takes \`customers:read\`. A field a spreadsheet would read as a formula (starting with =, +, -, @) starts with a quote mark.`,
        'x-stability': 'experimental',
        querystring: DealerBookQuery,
        response: {
          200: { description: "The dealer's book", content: { 'text/csv': { schema: { type: 'string', contentMediaType: 'text/csv' } } } },
          400: errorResponse`A missing or invalid \`from\` or \`to\`, \`to\` before \`from\`, or an unknown or repeated query parameter (${'validation_failed'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const { from, to } = request.query;
      if (to < from)
        throw invalid(`query parameter "to" must be on or after "from" (${from})`, {
          in: 'query',
          field: 'to',
          rule: 'formatMinimum',
          message: 'the last day is on or after the first',
        });
      const end = new Date(Date.parse(`${to}T00:00:00.000Z`) + DAY_MS);
      // A stream, which the route's string schema does not type; Fastify sends it as it comes.
      return reply
        .type(CSV_TYPE)
        .header('content-disposition', `attachment; filename="dealer-book-${from}-${to}.csv"`)
        .send(Readable.from(dealerBook(book, new Date(`${from}T00:00:00.000Z`), end)) as unknown as string);
    },
  );
};
