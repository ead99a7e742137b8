import type { FastifyInstance } from 'fastify';
import type { Storage } from '../../storage/storage.ts';
import { registerHealth } from './health.ts';
import type { Metrics } from './metrics.ts';

/** /healthz, /readyz and /metrics: public, outside /v1; on the main port or on METRICS_PORT. */
export function registerOps(app: FastifyInstance, storage: Storage, metrics: Metrics): void {
  registerHealth(app, storage);
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
