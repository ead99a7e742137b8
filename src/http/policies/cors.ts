import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** Response headers a browser script may read: paging, creation, limits, deprecation, tracing, entity tags. */
export const EXPOSED_HEADERS = [
  'Link',
  'Location',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Deprecation',
  'Sunset',
  'X-Request-Id',
  'Idempotent-Replayed',
  'ETag',
];
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'If-Match', 'If-None-Match'];
const OFF: FastifyCorsOptions = { origin: false };

/**
 * CORS for the origins in CORS_ORIGINS (off when empty). A preflight carries no Authorization
 * header, so @fastify/cors answers it (204) in its own global onRequest hook, which runs before
 * the route-level authentication hooks and before the explicit OPTIONS → 405 routes could. A request that
 * is not CORS at all (no Origin), or an OPTIONS that is no preflight, is left alone, so it still
 * gets the service's own answers (405 with Allow for a bare OPTIONS).
 */
export const corsPlugin = fp(crossOrigin, { name: 'cors', dependencies: ['auth'] });

async function crossOrigin(app: FastifyInstance, { origins }: { readonly origins: readonly string[] }): Promise<void> {
  if (origins.length === 0) return;
  const on: FastifyCorsOptions = {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    strictPreflight: false,
  };
  const isPreflight = (req: FastifyRequest) => req.method !== 'OPTIONS' || req.headers['access-control-request-method'] !== undefined;
  // Imported only when configured: a service without CORS_ORIGINS does not load the plugin.
  const { default: cors } = await import('@fastify/cors');
  await app.register(cors, () => (req: FastifyRequest, cb: (err: Error | null, options: FastifyCorsOptions) => void) => {
    cb(null, req.headers.origin !== undefined && isPreflight(req) ? on : OFF);
  });
}
