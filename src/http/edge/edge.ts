import { maxHeaderSize } from 'node:http';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Config } from '../../config.ts';
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
    // request.ip is the client: the TCP peer, or the address the trusted proxies name (TRUST_PROXY).
    trustProxy: typeof trustProxy === 'number' ? trustHops(trustProxy) : typeof trustProxy === 'object' ? [...trustProxy] : false,
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
 * A hop count trusts the last `hops` addresses of the chain (the peer, then X-Forwarded-For from
 * the right) whoever sent them. Fastify treats a bare number as trusting nothing, because a
 * client that reaches an instance directly could name any address; TRUST_PROXY=<hops> is for
 * instances only the proxies can reach (docs/deploy.md), otherwise list the proxies' addresses.
 */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/** Call first among the hooks: a request that arrives during shutdown is refused before any work. */
export function registerEdge(app: FastifyInstance): void {
  refuseWhileClosing(app);
  registerRequestTarget(app);
  routeWhatNodeAnswers(app);
}
