import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Metrics } from './metrics.ts';
import { addRouteHook } from './route-hooks.ts';

// Requests no route matched are counted under one label, so probing random URLs cannot blow up
// the metrics' cardinality.
const UNMATCHED = 'unmatched';

/**
 * One JSON log line and one metrics observation per request, keyed by the route pattern
 * (`/v1/pets/:petId`), never the raw URL. The key id is logged; the key itself never is.
 * Each route gets its own hook with its pattern and metric series bound once; requests no route
 * matched are observed by one global hook.
 */
export function registerTelemetry(app: FastifyInstance, metrics: Metrics): void {
  // Callback hooks (no promise per request); the log line's object is only built when the line
  // is written (LOG_LEVEL=warn drops the 2xx–4xx ones).
  const hook = (route: string) => {
    const observe = metrics.observer(route);
    return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const status = reply.statusCode;
      const durationMs = reply.elapsedTime;
      observe(request.method, status, durationMs / 1000);
      const level = status >= 500 ? 'error' : 'info';
      if ((request.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.(level) ?? true) {
        request.log[level]({ method: request.method, route, status, durationMs: Math.round(durationMs * 1000) / 1000, keyId: request.principal?.keyId ?? null }, 'request');
      }
      done();
    };
  };
  app.addHook('onRoute', (route) => addRouteHook(route, 'onResponse', hook(route.url)));
  const unmatched = hook(UNMATCHED);
  app.addHook('onResponse', (request, reply, done) => (request.is404 ? unmatched(request, reply, done) : done()));
}
