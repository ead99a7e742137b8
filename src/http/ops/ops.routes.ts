import { isIPv4, isIPv6 } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import type { Storage } from '../../storage/storage.ts';
import type { Metrics } from './metrics.ts';

const Health = Type.Object({ status: Type.String() });

/** Whether `host` (HOST) is a loopback address: only this machine can connect to it. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIPv4(h)) return h.startsWith('127.');
  if (!isIPv6(h)) return false;
  const bare = new URL(`http://[${h}]/`).hostname.slice(1, -1); // canonical form: 0:0::1 → ::1
  return bare === '::1' || /^::ffff:7f[0-9a-f]{2}:/.test(bare);
}

/**
 * Whether the API's own port serves /metrics (without METRICS_PORT): only while it listens on a
 * loopback address, where nobody but this machine reads it. On any other address the metrics —
 * request counts per route and status, key and webhook figures — are served on METRICS_PORT
 * only, which the operator keeps off the internet (docs/operations.md, "Metrics").
 */
export function metricsOnApiPort(config: { readonly host: string; readonly metricsPort?: number }): boolean {
  return config.metricsPort === undefined && isLoopbackHost(config.host);
}

export interface OpsRoutesOptions {
  readonly storage: Storage;
  readonly metrics: Metrics;
  /** Serve /metrics too (default true); health is always served. */
  readonly serveMetrics?: boolean;
}

/**
 * /healthz and /readyz (liveness and readiness for load balancers and orchestrators) and
 * /metrics: public, outside /v1; on the main port or on METRICS_PORT (/metrics on the main port
 * only while it listens on loopback: `metricsOnApiPort`).
 */
export const opsRoutesPlugin = fp(opsRoutes, { name: 'ops-routes', dependencies: ['error-handler', 'method-not-allowed'] });

async function opsRoutes(app: FastifyInstance, { storage, metrics, serveMetrics = true }: OpsRoutesOptions): Promise<void> {
  app.get('/healthz', { config: { public: true }, schema: { hide: true, response: { 200: Health } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { public: true }, schema: { hide: true, response: { 200: Health } } }, async () => {
    await storage.ping(); // throws StorageUnavailableError → 503
    return { status: 'ready' };
  });
  if (!serveMetrics) return;
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
