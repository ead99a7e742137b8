import { maxHeaderSize } from 'node:http';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.ts';
import { trustedProxies } from './client-address.ts';
import { clientErrorHandler, refuseWhileClosing, routeWhatNodeAnswers } from './connection.ts';
import { registerRequestTarget, rewriteUrl } from './request-target.ts';

/**
 * The edge of the service: every message that reaches the process is answered in its own terms
 * (docs/api.md, "Requests" and "Malformed requests"). Fastify options first, then the hooks.
 */
export function edgeOptions(
  trustProxy: Config['trustProxy'] = false,
): Pick<FastifyServerOptions, 'clientErrorHandler' | 'rewriteUrl' | 'routerOptions' | 'return503OnClosing' | 'trustProxy'> {
  return {
    trustProxy: trustedProxies(trustProxy),
    clientErrorHandler,
    // connection.ts answers requests that arrive during shutdown, in the Error shape.
    return503OnClosing: false,
    rewriteUrl,
    // A path parameter is as long as the request line lets it be (llhttp bounds that): an over-long
    // one reaches its route and is refused there, after authentication and with the route's headers.
    routerOptions: { maxParamLength: maxHeaderSize },
  };
}

/**
 * The edge's hooks: a request that arrives during shutdown is refused before any work (after
 * request-id's hook, which names the refusal), the request target is checked, and what node:http
 * would answer itself is routed.
 */
export const edgePlugin = fp(edge, { name: 'edge', dependencies: ['request-id'] });

async function edge(app: FastifyInstance): Promise<void> {
  refuseWhileClosing(app);
  registerRequestTarget(app);
  routeWhatNodeAnswers(app);
}
