import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import type { Storage } from '../../storage/storage.ts';
import type { Metrics } from './metrics.ts';

const Health = Type.Object({ status: Type.String() });

/**
 * /healthz and /readyz (liveness and readiness for load balancers and orchestrators) and
 * /metrics: public, outside /v1; on the main port or on METRICS_PORT.
 */
export const opsRoutesPlugin = fp(opsRoutes, { name: 'ops-routes', dependencies: ['error-handler', 'method-not-allowed'] });

async function opsRoutes(app: FastifyInstance, { storage, metrics }: { readonly storage: Storage; readonly metrics: Metrics }): Promise<void> {
  app.get('/healthz', { config: { public: true }, schema: { hide: true, response: { 200: Health } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { public: true }, schema: { hide: true, response: { 200: Health } } }, async () => {
    await storage.ping(); // throws StorageUnavailableError → 503
    return { status: 'ready' };
  });
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
