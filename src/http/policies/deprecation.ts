import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../../clock.ts';
import { AppError } from '../../errors.ts';
import { addRouteHook } from '../route-hooks.ts';

export interface Deprecation {
  /** When the operation was deprecated (RFC 9745 `Deprecation: @<unix seconds>`). */
  readonly deprecatedAt: Date;
  /** When it stops working (RFC 8594 `Sunset`); from then on it answers 410 Gone. */
  readonly sunset: Date;
  /** Path, under the API base, of the operation that replaces it. */
  readonly successor: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    deprecation?: Deprecation;
  }
}

/** The headers every response of a deprecated operation carries (also the OpenAPI examples). */
export function deprecationHeaders(d: Deprecation, base: string, docsUrl: string): { deprecation: string; sunset: string; link: string } {
  return {
    deprecation: `@${Math.floor(d.deprecatedAt.getTime() / 1000)}`,
    sunset: d.sunset.toUTCString(),
    link: `<${base}${d.successor}>; rel="successor-version", <${docsUrl}>; rel="deprecation"; type="text/html"`,
  };
}

/**
 * The headers of a deprecated form of a request (a body without a member that is now required),
 * where the operation itself stays: when the form was deprecated, when it is refused, and the guide.
 */
export function formDeprecationHeaders(
  d: { readonly deprecatedAt: Date; readonly sunset: Date },
  docsUrl: string,
): { deprecation: string; sunset: string; link: string } {
  return {
    deprecation: `@${Math.floor(d.deprecatedAt.getTime() / 1000)}`,
    sunset: d.sunset.toUTCString(),
    link: `<${docsUrl}>; rel="deprecation"; type="text/html"`,
  };
}

/** 410: the operation is past its sunset; the answer names its successor. */
export function pastSunset(d: Deprecation, base: string): AppError {
  return new AppError('gone', `this operation was removed on ${d.sunset.toUTCString()}; use GET ${base}${d.successor} instead`);
}

export interface DeprecationOptions {
  readonly clock: Clock;
  /** The API base (`/v1` or PUBLIC_BASE_URL) the successor is named under. */
  readonly base: string;
  readonly docsUrl: string;
}

/**
 * Registered before authentication (the auth plugin depends on it) so that every response of a
 * deprecated operation — 401s included — tells the client it is deprecated, when it ends and
 * what replaces it. The headers are formatted once per route, and only deprecated routes get the hook.
 */
export const deprecationPlugin = fp(deprecation, { name: 'deprecation' });

async function deprecation(app: FastifyInstance, { clock, base, docsUrl }: DeprecationOptions): Promise<void> {
  app.addHook('onRoute', (route) => {
    const d = route.config?.deprecation;
    if (d === undefined) return;
    const headers = deprecationHeaders(d, base, docsUrl);
    const sunset = d.sunset.getTime();
    const gone = pastSunset(d, base);
    addRouteHook(route, 'onRequest', (_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      reply.headers(headers);
      done(clock.now().getTime() >= sunset ? gone : undefined);
    });
  });
}
