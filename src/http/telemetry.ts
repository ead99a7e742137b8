import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Metrics } from './metrics.ts';
import { addRouteHook } from './route-hooks.ts';

// Requests no route matched are counted under one label, so probing random URLs cannot blow up
// the metrics' cardinality.
const UNMATCHED = 'unmatched';

/** Counts one answered request and writes its log line; durationMs from arrival to response. */
export type ResponseRecorder = (reqId: string, method: string, status: number, durationMs: number, keyId: number | null) => void;

export interface Telemetry {
  /** What the route hooks record with, for requests answered outside Fastify (hot-lane.ts). */
  recorder(route: string, logLevel: string | undefined): ResponseRecorder;
}

/**
 * One JSON log line and one metrics observation per request, keyed by the route pattern
 * (`/v1/pets/:petId`), never the raw URL. The key id is logged; the key itself never is.
 * Each route gets its own hook with its pattern and metric series bound once; requests no route
 * matched are observed by one global hook.
 */
export function registerTelemetry(app: FastifyInstance, metrics: Metrics): Telemetry {
  // The request line is written by a logger of its own per route — at the route's log level, and
  // without redaction. Its fields are fixed here: nothing from headers, bodies or keys can reach
  // it (the request id was vetted on arrival), while pino's wildcard redaction paths cost more than
  // the rest of the line (≈ 9 → 3.4 µs a line). It names the request itself (reqId first, as the
  // request's child logger would), so no child logger is made for a request that only logs this.
  // One such logger per distinct route log level (most routes have none), made on first use.
  const accessLogs = new Map<string, FastifyBaseLogger>();
  const accessLog = (logLevel: string | undefined) => {
    const key = logLevel ?? '';
    let log = accessLogs.get(key);
    if (log === undefined) {
      log = app.log.child({}, { ...(logLevel ? { level: logLevel } : {}), redact: { paths: [] } });
      accessLogs.set(key, log);
    }
    return log;
  };
  // The line's object is only built when it is written (LOG_LEVEL=warn drops the 2xx–4xx ones).
  const recorder = (route: string, log: FastifyBaseLogger): ResponseRecorder => {
    const observe = metrics.observer(route);
    const enabled = (level: string) => (log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.(level) ?? true;
    return (reqId, method, status, durationMs, keyId) => {
      observe(method, status, durationMs / 1000);
      const level = status >= 500 ? 'error' : 'info';
      if (enabled(level)) {
        log[level]({ reqId, method, route, status, durationMs: Math.round(durationMs * 1000) / 1000, keyId }, 'request');
      }
    };
  };
  // Callback hooks: no promise per request.
  const hook = (record: ResponseRecorder) => (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    record(request.id, request.method, reply.statusCode, reply.elapsedTime, request.principal?.keyId ?? null);
    done();
  };
  app.addHook('onRoute', (route) => addRouteHook(route, 'onResponse', hook(recorder(route.url, accessLog(route.logLevel)))));
  const unmatched = hook(recorder(UNMATCHED, accessLog(undefined)));
  app.addHook('onResponse', (request, reply, done) => (request.is404 ? unmatched(request, reply, done) : done()));
  return { recorder: (route, logLevel) => recorder(route, accessLog(logLevel)) };
}
