import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

/** Deepest object/array nesting a request body may have. */
export const MAX_JSON_DEPTH = 32;

/**
 * Node http.Server timeouts, so slow or stalled clients cannot hold connections: the whole
 * header block within HEADERS_TIMEOUT_MS, the whole request within REQUEST_TIMEOUT_MS, idle
 * keep-alive connections closed after KEEP_ALIVE_TIMEOUT_MS. Node enforces the first two from a
 * periodic sweep whose default period (30 s) would let a slow client linger far past them, so
 * the sweep runs every second. The body limit is checked against Content-Length before reading,
 * and while streaming when there is none: 413 comes before the body is buffered.
 */
export function serverOptions(config: Config): Pick<FastifyServerOptions, 'bodyLimit' | 'requestTimeout' | 'keepAliveTimeout' | 'connectionTimeout'> & { http: { headersTimeout: number; connectionsCheckingInterval: number } } {
  return {
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // Socket inactivity: a connection silent for as long as a whole request may take is dead.
    connectionTimeout: config.requestTimeoutMs,
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs) },
  };
}

/** true when `text` (JSON) nests objects/arrays deeper than `max`; brackets inside strings are skipped. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

/**
 * Fastify's own JSON parser (prototype-poisoning checks included) behind a nesting check, so a
 * deeply nested body is refused in linear time before JSON.parse and validation recurse into it.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // A body shorter than the limit cannot nest deeper than it.
    if (text.length > MAX_JSON_DEPTH && nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new AppError('bad_request', `request body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    parse(request, text, done);
  });
}
