import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Fastify answers 404 for a known path with an unknown method; HTTP wants 405 with `Allow`
 * (RFC 9110 §15.5.6). Call methodNotAllowed() before routes are added and fill() after: it adds
 * hidden routes for the remaining methods of every known path.
 */
export function methodNotAllowed(app: FastifyInstance) {
  const allowed = new Map<string, Set<string>>();
  const publicUrls = new Set<string>();
  app.addHook('onRoute', (route) => {
    // '*' is @fastify/cors's catch-all OPTIONS route: it must not make every unknown path a 405.
    if (route.config?.methodNotAllowed || route.url === '*') return;
    const set = allowed.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) set.add(m);
    allowed.set(route.url, set);
    if (route.config?.public) publicUrls.add(route.url);
  });
  return {
    fill(): void {
      for (const [url, methods] of allowed) {
        const missing = METHODS.filter((m) => !methods.has(m));
        if (missing.length === 0) continue;
        const allow = METHODS.filter((m) => methods.has(m)).join(', ');
        app.route({
          method: missing,
          url,
          schema: { hide: true },
          // Same authentication as the path's real routes: 405 is no way to probe /v1 without a key.
          config: { methodNotAllowed: true, public: publicUrls.has(url) },
          handler: async (request) => {
            throw new AppError('method_not_allowed', `${request.method} is not allowed here; allowed: ${allow}`, { allow });
          },
        });
      }
    },
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    methodNotAllowed?: boolean;
  }
}
