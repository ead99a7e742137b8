import { METHODS as NODE_METHODS } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.ts';

// Every method node:http parses (llhttp refuses any other before a route can run: connection.ts),
// the common ones first so that `Allow` lists them in the usual order.
const COMMON = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const METHODS = [...COMMON, ...NODE_METHODS.filter((m) => !COMMON.includes(m))];

/** 405 for `method` on a path that allows the methods `allow` lists. */
export function methodNotAllowedHere(method: string, allow: string): AppError {
  return new AppError('method_not_allowed', `${method} is not allowed here; allowed: ${allow}`, { allow });
}

/**
 * Fastify answers 404 for a known path with a method it has no route for, and does not route
 * methods such as TRACE or PROPFIND at all; HTTP wants 405 with `Allow` (RFC 9110 §15.5.6) for
 * every method on a known path. Two plugins: `method-not-allowed`, registered before the routes,
 * teaches Fastify every method node:http knows and notes each path's methods; `405-routes`,
 * registered after every route, adds hidden routes for the methods each known path lacks. The
 * 405 comes after authentication and before the body is read.
 */
export function methodNotAllowed() {
  const allowed = new Map<string, Set<string>>();
  const publicUrls = new Set<string>();
  const collect = async (app: FastifyInstance) => {
    for (const m of METHODS) {
      if (!app.supportedMethods.includes(m)) app.addHttpMethod(m, { hasBody: false });
    }
    app.addHook('onRoute', (route) => {
      // '*' is @fastify/cors's catch-all OPTIONS route: it must not make every unknown path a 405.
      if (route.config?.methodNotAllowed || route.url === '*') return;
      const set = allowed.get(route.url) ?? new Set<string>();
      for (const m of [route.method].flat()) set.add(m);
      allowed.set(route.url, set);
      if (route.config?.public) publicUrls.add(route.url);
    });
  };
  const fill = async (app: FastifyInstance) => {
    for (const [url, methods] of allowed) {
      const missing = METHODS.filter((m) => !methods.has(m));
      if (missing.length === 0) continue;
      const allow = METHODS.filter((m) => methods.has(m)).join(', ');
      const refuse = (request: FastifyRequest, _reply: FastifyReply, _payload: unknown, done: HookHandlerDoneFunction) =>
        done(methodNotAllowedHere(request.method, allow));
      app.route({
        method: missing,
        url,
        schema: { hide: true },
        // Same authentication as the path's real routes: 405 is no way to probe /v1 without a key.
        config: { methodNotAllowed: true, public: publicUrls.has(url) },
        // Before the body is parsed: a PUT with a body in any shape is refused as a PUT.
        preParsing: refuse,
        // Never reached (preParsing refuses every request); Fastify requires a handler.
        /* node:coverage ignore next */
        handler: async () => undefined,
      });
    }
  };
  return {
    collect: fp(collect, { name: 'method-not-allowed' }),
    fill: fp(fill, { name: '405-routes', dependencies: ['method-not-allowed'] }),
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    methodNotAllowed?: boolean;
  }
}
