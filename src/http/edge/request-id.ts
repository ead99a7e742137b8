import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

// An incoming id is echoed into logs and headers, so only short ids of a log-safe charset are
// honoured (no spaces, quotes, control characters or CRLF); anything else gets a fresh UUID.
export const REQUEST_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/;

export function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * First hook of all, so every response — 404, 405, 401, errors — names the request and tells
 * browsers not to sniff content types. (Fastify sends no X-Powered-By.)
 */
export const requestIdPlugin = fp(requestIdHeaders, { name: 'request-id' });

async function requestIdHeaders(app: FastifyInstance): Promise<void> {
  // A callback hook, not an async one: no promise per request for two header writes.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    done();
  });
}
