import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { pathOf } from '../policies/error-handler.ts';
import type { Metrics } from './metrics.ts';
import { addRouteHook } from '../route-hooks.ts';

// Requests no route matched are counted under one label, so probing random URLs cannot blow up
// the metrics' cardinality.
const UNMATCHED = 'unmatched';
const noop = () => {};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Some answers are streams that end when the client leaves (the event feed): logged then too. */
    streams?: boolean;
  }
}

/**
 * One JSON log line and one metrics observation per request, keyed by the route pattern
 * (`/v1/pets/:petId`), never the raw URL. The key id is logged; the key itself never is. The
 * client address is logged as request.ip, which follows TRUST_PROXY. An error answer's line
 * names its Error `code`; a request no route matched names its path (never the query, which may
 * carry secrets) — the metrics keep one label for all of those.
 * Each route gets its own hook with its pattern and metric series bound once; requests no route
 * matched are observed by one global hook.
 */
export const telemetryPlugin = fp(telemetry, { name: 'telemetry' });

async function telemetry(app: FastifyInstance, { metrics }: { readonly metrics: Metrics }): Promise<void> {
  // The request line is written by a logger of its own per route log level, without redaction:
  // its fields are fixed here, so nothing from headers, bodies or keys can reach it (the request
  // id was vetted on arrival), and pino's wildcard redaction paths would cost more than the rest
  // of the line (docs/performance.md). It names the request itself (reqId first), so no child
  // logger is made for a request that only logs this.
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
  // One observation and, when its level is enabled, one line per answered request.
  const recorder = (route: string, log: FastifyBaseLogger, unmatched = false) => {
    const observe = metrics.observer(route);
    // pino has isLevelEnabled; the no-op logger of `logger: false` has not (and writes nothing).
    const enabled = (level: string) => (log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.(level) ?? false;
    return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
      const status = reply.statusCode;
      const durationMs = reply.elapsedTime;
      observe(request.method, status, durationMs / 1000);
      const level = status >= 500 ? 'error' : 'info';
      if (enabled(level)) {
        const keyId = request.principal?.keyId ?? null;
        // ip: the client (request.ip follows TRUST_PROXY), not a proxy in front.
        // path: only where no route pattern names the request (pino leaves an undefined field out).
        const path = unmatched ? pathOf(request.url) : undefined;
        const code = reply.errorCode;
        log[level](
          { reqId: request.id, method: request.method, route, path, status, code, durationMs: Math.round(durationMs * 1000) / 1000, keyId, ip: request.ip },
          'request',
        );
      }
      done();
    };
  };
  app.addHook('onRoute', (route) => {
    const record = recorder(route.url, accessLog(route.logLevel));
    addRouteHook(route, 'onResponse', record);
    // A stream ends when its client leaves: the response never finishes, so Fastify runs no
    // onResponse for it, and its one line is written when the connection closes instead. Only
    // the routes that stream (config.streams) pay for the listener.
    if (route.config?.streams === true)
      addRouteHook(route, 'onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
        reply.raw.once('close', () => {
          if (reply.raw.headersSent && !reply.raw.writableFinished) record(request, reply, noop);
        });
        done();
      });
  });
  const unmatched = recorder(UNMATCHED, accessLog(undefined), true);
  app.addHook('onResponse', (request, reply, done) => (request.is404 ? unmatched(request, reply, done) : done()));
}
