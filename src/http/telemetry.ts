import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.ts';

// Requests no route matched are counted under one label, so probing random URLs cannot blow up
// the metrics' cardinality.
const UNMATCHED = 'unmatched';

/**
 * One JSON log line and one metrics observation per request, keyed by the route pattern
 * (`/v1/pets/:petId`), never the raw URL. The key id is logged; the key itself never is.
 */
export function registerTelemetry(app: FastifyInstance, metrics: Metrics): void {
  // A callback hook (no promise per request); the log line's object is only built when the
  // line is written (LOG_LEVEL=warn drops the 2xx–4xx ones).
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    const status = reply.statusCode;
    const durationMs = reply.elapsedTime;
    metrics.observe(request.method, route, status, durationMs / 1000);
    const level = status >= 500 ? 'error' : 'info';
    if ((request.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.(level) ?? true) {
      request.log[level]({ method: request.method, route, status, durationMs: Math.round(durationMs * 1000) / 1000, keyId: request.principal?.keyId ?? null }, 'request');
    }
    done();
  });
}
