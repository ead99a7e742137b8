import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../../config.ts';

/**
 * Node http.Server timeouts, so slow or stalled clients cannot hold connections: the whole
 * header block within HEADERS_TIMEOUT_MS, the whole request within REQUEST_TIMEOUT_MS, idle
 * keep-alive connections closed after KEEP_ALIVE_TIMEOUT_MS. Node enforces the first two from a
 * periodic sweep whose default period (30 s) would let a slow client linger far past them, so
 * the sweep runs every second. A socket silent for longer than a request may take plus two sweeps
 * is dead (it covers a client that stops reading a response); it must outlast the request
 * deadline and the sweep that enforces it, or a stalled request would be dropped without its 408.
 * The body limit is checked against Content-Length before reading, and while streaming when
 * there is none: 413 comes before the body is buffered.
 */
export function serverOptions(config: Config): Pick<FastifyServerOptions, 'bodyLimit' | 'requestTimeout' | 'keepAliveTimeout' | 'connectionTimeout'> & {
  http: { headersTimeout: number; connectionsCheckingInterval: number; requireHostHeader: boolean };
} {
  const sweepMs = Math.min(1000, config.headersTimeoutMs);
  return {
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    connectionTimeout: config.requestTimeoutMs + 2 * sweepMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: sweepMs,
      // node:http would answer a missing Host with a bare 400; request-target.ts checks Host instead.
      requireHostHeader: false,
    },
  };
}
