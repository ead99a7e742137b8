import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { BILL_OF_SALE_CSS, BILL_OF_SALE_CSS_PATH } from '../../store/bill-of-sale.html.ts';

/**
 * The print stylesheet of the bill of sale, served with no key: it holds no data, and the document
 * (served under the console's CSP, `style-src 'self'`) can take no inline style.
 */
export const printPlugin = fp(print, { name: 'print', dependencies: ['error-handler', 'telemetry', 'method-not-allowed'] });

async function print(app: FastifyInstance): Promise<void> {
  const etag = `"${createHash('sha256').update(BILL_OF_SALE_CSS).digest('base64url').slice(0, 22)}"`;
  app.get(BILL_OF_SALE_CSS_PATH, { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').header('etag', etag).send(BILL_OF_SALE_CSS),
  );
}
