import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError } from '../errors.ts';
import type { KeyVerifier } from '../keys/key.service.ts';
import type { Limiter, Metrics } from './metrics.ts';
import { FixedWindowLimiter, type Verdict } from './rate-limit.ts';
import { sendError } from './error-handler.ts';
import { addRouteHook } from './route-hooks.ts';
import type { Caller, Scope } from '../keys/key.types.ts';

/**
 * Calls next with value now when it is one, or once it resolves; a rejection — or a throw from
 * next after a wait — goes to fail (a hook's done) instead of becoming an unhandled rejection.
 */
function after<T>(value: T | Promise<T>, next: (value: T) => void, fail: (err: Error) => void): void {
  if (value instanceof Promise) value.then(next).catch(fail);
  else next(value);
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Caller | null;
  }
  interface FastifyContextConfig {
    /** Routes that answer without an API key (OpenAPI document, docs, health). */
    public?: boolean;
    /** The scope a key needs for this operation. */
    scope?: Scope;
  }
}

const REALM = 'Bearer realm="petstore"';

/** The 401 of a request without an Authorization header (a constant: its body is written once). */
export const MISSING_KEY = new AppError('unauthorized', 'missing Authorization header; send Authorization: Bearer <API key>', { 'www-authenticate': REALM });

// RFC 6750 §2.1: the scheme is case-insensitive; the token is a b64token.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}

export interface AuthLimits {
  /** Requests per API key (RATE_LIMIT_PER_MINUTE); absent when disabled. */
  readonly perKey?: FixedWindowLimiter;
  /** Failed authentications per client address (AUTH_FAILURE_LIMIT_PER_MINUTE); absent when disabled. */
  readonly authFailures?: FixedWindowLimiter;
  readonly metrics: Metrics;
}

/**
 * Authentication runs in onRequest, before the body is read or validated, for everything under
 * /v1 except public routes — unknown /v1 paths included, so routes cannot be probed without a key.
 * Rate limits run here too: an address over its failure budget is refused before its token is
 * even looked at (so a correct guess would not tell), and a key over its budget gets 429.
 */
export function registerAuth(app: FastifyInstance, verifier: KeyVerifier, limits: AuthLimits): { guardUnmatched(): void } {
  const { perKey, authFailures, metrics } = limits;
  const tooMany = (limiter: Limiter, v: Verdict, message: string) => {
    metrics.rateLimited.inc({ limiter });
    return new AppError('rate_limited', message, { 'retry-after': String(v.reset) });
  };
  const tooManyFailures = (v: Verdict) => tooMany('auth_failure', v, `too many failed authentications from this address; retry in ${v.reset} s`);
  // The 401s that do not depend on the request are built once: a 401 is the cheapest answer the
  // service gives, and under a flood of unauthenticated requests the Error objects showed.
  const MALFORMED = new AppError('unauthorized', 'Authorization header is not of the form Bearer <API key>', { 'www-authenticate': REALM });
  // RFC 6750 §3.1: error="invalid_token" once a bearer token was presented at all.
  const MALFORMED_BEARER = new AppError('unauthorized', 'Authorization header is not of the form Bearer <API key>', { 'www-authenticate': `${REALM}, error="invalid_token"` });
  const UNKNOWN = new AppError('unauthorized', 'API key is unknown or revoked', { 'www-authenticate': `${REALM}, error="invalid_token"` });

  // Refusals are answered from here, not thrown: a throw costs V8 a stack walk and Fastify a
  // rejected promise and its error path, for the answer the service gives most cheaply.
  const refuse = (request: FastifyRequest, reply: FastifyReply, refusal: AppError): void => void sendError(request, reply, refusal);
  // Only a presented bearer token that fails is a guess worth counting: a request without
  // credentials (or with another scheme) cannot find a key, so it answers 401 without using up
  // the address's failure budget — clients probing the 401 contract are not locked out.
  const refuseGuess = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, refusal: AppError): void => {
    if (!authFailures) return refuse(request, reply, refusal);
    const counted = (v: Verdict) => refuse(request, reply, v.allowed ? refusal : tooManyFailures(v));
    after(authFailures.hit(request.ip), counted, done);
  };

  // The key path, in steps that run synchronously as long as their answers are (SQLite, memory
  // counters) and continue from a promise otherwise (PostgreSQL, Redis). Each step either calls
  // the next, sends a refusal, or hands an error to `done`.
  const authorize = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, scope: Scope | undefined): void => {
    if (scope !== undefined && !request.principal!.scopes.includes(scope)) {
      return refuse(request, reply, new AppError('insufficient_scope', `this API key lacks the scope ${scope}`, { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"` }));
    }
    done();
  };
  const limit = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, scope: Scope | undefined, v: Verdict): void => {
    reply.header('ratelimit-policy', perKey!.policy);
    reply.header('ratelimit', FixedWindowLimiter.field(v));
    if (!v.allowed) {
      return refuse(request, reply, tooMany('key', v, `this API key made more than ${perKey!.limit} requests in ${perKey!.windowMs / 1000} s; retry in ${v.reset} s`));
    }
    authorize(request, reply, done, scope);
  };
  const admit = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, scope: Scope | undefined, caller: Caller | undefined): void => {
    if (!caller) return refuseGuess(request, reply, done, UNKNOWN);
    // Known from here on, so the request log line names the key even when it is refused below.
    request.principal = caller;
    if (!perKey) return authorize(request, reply, done, scope);
    after(perKey.hit(caller.subject), (v) => limit(request, reply, done, scope, v), done);
  };

  /** The onRequest hook of one route (scope: the route's; undefined for unknown paths and 405s). */
  const gate = (scope: Scope | undefined) =>
    function authenticate(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
      // Per-key data, and refusals of it, must not be kept by shared or browser caches.
      reply.header('cache-control', 'no-store');
      const blocked = authFailures?.isBlocked(request.ip);
      if (blocked) return refuse(request, reply, tooManyFailures(blocked));
      const header = request.headers.authorization;
      const token = parseBearer(header);
      if (token === undefined) {
        if (header === undefined) return refuse(request, reply, MISSING_KEY);
        if (!/^bearer\b/i.test(header)) return refuse(request, reply, MALFORMED);
        return refuseGuess(request, reply, done, MALFORMED_BEARER);
      }
      after(verifier.verify(token), (caller) => admit(request, reply, done, scope, caller), done);
    };

  app.decorateRequest('principal', null);
  // Everything under /v1 needs a key except public routes — unknown /v1 paths included, so routes
  // cannot be probed without one. Each route gets its own hook with its scope built in.
  const unknownPath = gate(undefined);
  app.addHook('onRoute', (route) => {
    if (route.config?.public === true) return;
    if (route.url.startsWith('/v1/')) return addRouteHook(route, 'onRequest', gate(route.config?.scope));
    // A pattern that is not under /v1 itself ('*', …) may still match /v1 URLs.
    addRouteHook(route, 'onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) =>
      request.url.startsWith('/v1/') ? unknownPath(request, reply, done) : done(),
    );
  });
  return {
    /**
     * Unknown /v1 paths have no route, so no route hook: one global hook authenticates them.
     * Added by the caller after the plugins whose global hooks must run first (CORS adds `Vary`).
     */
    guardUnmatched(): void {
      app.addHook('onRequest', (request, reply, done) => (request.is404 && request.url.startsWith('/v1/') ? unknownPath(request, reply, done) : done()));
    },
  };
}
