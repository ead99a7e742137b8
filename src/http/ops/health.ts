import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Storage } from '../../storage/storage.ts';

const Health = Type.Object({ status: Type.String() });

/** Liveness and readiness for load balancers and orchestrators; public, outside /v1. */
export function registerHealth(app: FastifyInstance, storage: Storage): void {
  app.get('/healthz', { config: { public: true }, schema: { hide: true, response: { 200: Health } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { public: true }, schema: { hide: true, response: { 200: Health } } }, async () => {
    await storage.ping(); // throws StorageUnavailableError → 503
    return { status: 'ready' };
  });
}
