import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { actingAs, actorOf } from '../../activity/activity.context.ts';
import { AppError } from '../../errors.ts';
import { looksGenerated, type KeyVerifier } from '../../keys/key.service.ts';
import type { Caller, Scope } from '../../keys/key.types.ts';
import type { ImageWorkBudget } from '../../photos/photo.service.ts';
import { addressKey } from '../edge/client-address.ts';
import { assertConsoleRequest, sessionToken } from './session-cookie.ts';
import { SESSION_ENDED } from '../../staff/session.service.ts';
import { FixedWindowLimiter, type Verdict } from './rate-limit.ts';
import { repeatedField } from '../edge/request-target.ts';
import { addRouteHook } from '../route-hooks.ts';

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
// RFC 6750 §3.1: error="invalid_token" once a bearer token was presented at all.
const INVALID_TOKEN = `${REALM}, error="invalid_token"`;
const MALFORMED_TEXT = 'Authorization header is not of the form Bearer <API key>';
// The refusals that depend on nothing in the request are made once: an AppError writes its body
// once, and the 401 is the answer the service gives most often under a flood (docs/performance.md).
export const MISSING_AUTHORIZATION = new AppError('unauthorized', 'missing Authorization header; send Authorization: Bearer <API key>', {
  'www-authenticate': REALM,
});
const MALFORMED = new AppError('unauthorized', MALFORMED_TEXT, { 'www-authenticate': REALM });
const MALFORMED_BEARER = new AppError('unauthorized', MALFORMED_TEXT, { 'www-authenticate': INVALID_TOKEN });
const UNKNOWN = new AppError('unauthorized', 'API key is unknown, revoked or expired', { 'www-authenticate': INVALID_TOKEN });

// RFC 6750 §2.1: the scheme is case-insensitive; the token is a b64token.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}

/** Which limit refused a request: the API key's, or the client address's failed authentications. */
export type Limiter = 'key' | 'auth_failure';

/** What authentication reports (implemented by ops/metrics.ts). */
export interface AuthMetrics {
  rateLimited(limiter: Limiter): void;
}

/** 429 with the time left in the window. */
function rateLimited(what: string, v: Verdict): AppError {
  return new AppError('rate_limited', `${what}; retry in ${v.reset} s`, { 'retry-after': String(v.reset) });
}

/** The key's tree used up its requests of the window (RATE_LIMIT_PER_MINUTE, counted per key tree: Caller.budget). */
export function keyOverLimit(limiter: { readonly limit: number; readonly windowMs: number }, v: Verdict): AppError {
  return rateLimited(`this API key and the keys of its tree made more than ${limiter.limit} requests in ${limiter.windowMs / 1000} s`, v);
}

/**
 * An upload's image work charged to the caller's key tree (Caller.budget) against
 * PHOTO_BUDGET_MS_PER_MINUTE; no budget when the limit is off (0).
 */
export function imageWorkBudget(limiter: FixedWindowLimiter | undefined, caller: Caller): ImageWorkBudget | undefined {
  if (limiter === undefined) return undefined;
  return {
    admit: async () => {
      const v = await limiter.hit(caller.budget, 0);
      if (!v.allowed)
        throw rateLimited(
          `this API key and the keys of its tree used their ${limiter.limit} ms of image work in ${limiter.windowMs / 1000} s (PHOTO_BUDGET_MS_PER_MINUTE)`,
          v,
        );
    },
    charge: async (ms) => {
      await limiter.hit(caller.budget, ms);
    },
  };
}

export function insufficientScope(scope: Scope, who = 'this API key'): AppError {
  return new AppError('insufficient_scope', `${who} lacks the scope ${scope}`, {
    'www-authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"`,
  });
}

export interface AuthOptions {
  readonly verifier: KeyVerifier;
  /** Requests per API key (RATE_LIMIT_PER_MINUTE); absent when disabled. */
  readonly perKey?: FixedWindowLimiter;
  /** Failed authentications per client address (AUTH_FAILURE_LIMIT_PER_MINUTE); absent when disabled. */
  readonly authFailures?: FixedWindowLimiter;
  readonly metrics: AuthMetrics;
  /** Resolves a staff session's cookie token (staff/session.service.ts); absent: no cookie is read. */
  readonly sessions?: SessionVerifier;
  /** PUBLIC_BASE_URL ('' → the origin a request was sent to): what a cookie-authenticated request's Origin must be. */
  readonly publicBaseUrl?: string;
}

/** What authentication asks of sessions. */
export interface SessionVerifier {
  verify(token: string): Promise<Caller | undefined>;
}

/**
 * Authentication, scope and rate limits: one async onRequest hook per route (its scope bound
 * in), before the body is read or validated, for everything under /v1 except public routes —
 * unknown /v1 paths included, so the API cannot be probed without a key. An address over its
 * failure budget is refused before its token is looked at (so a correct guess would not tell),
 * except a token shaped like a generated key, which no guess finds: a valid one goes on; a key
 * tree over its budget (RATE_LIMIT_PER_MINUTE, counted per tree: Caller.budget) gets 429.
 *
 * Two plugins. `auth` gives every route registered after it its hook, after deprecation's (so a
 * deprecated operation's refusals carry its headers). Unknown /v1 paths have no route, so no
 * route hook: `auth-unknown-paths` authenticates them with one global hook, after CORS's (so the
 * 401 carries `Vary` and what a browser needs to read it).
 */
export function authentication({ verifier, perKey, authFailures, metrics, sessions, publicBaseUrl = '' }: AuthOptions) {
  const tooMany = (limiter: Limiter, refusal: AppError): AppError => {
    metrics.rateLimited(limiter);
    return refusal;
  };
  const tooManyFailures = (v: Verdict) => tooMany('auth_failure', rateLimited('too many failed authentications from this address', v));

  /**
   * A presented bearer token that fails is a guess worth counting. A request without credentials
   * (or with another scheme) cannot find a key, so it gets its 401 without using up the address's
   * failure budget: clients probing the 401 contract are not locked out.
   */
  const guessFailed = async (address: string, refusal: AppError): Promise<AppError> => {
    const v = await authFailures?.hit(address);
    return v === undefined || v.allowed ? refusal : tooManyFailures(v);
  };

  const authenticate = async (request: FastifyRequest, reply: FastifyReply, scope: Scope | undefined): Promise<void> => {
    // Per-key data, and refusals of it, must not be kept by shared or browser caches.
    reply.header('cache-control', 'no-store');
    // The client's address (request.ip follows TRUST_PROXY), counted per IPv4 address or IPv6 /64.
    const address = addressKey(request.ip);
    const header = request.headers.authorization;
    // A staff session (the console): its cookie, when no Authorization is sent — never a key. Its
    // 256-bit token is not found by guessing either, so a blocked address does not stop it.
    const cookie = header === undefined && sessions !== undefined ? sessionToken(request) : undefined;
    if (cookie !== undefined) {
      const caller = await sessions!.verify(cookie);
      if (caller === undefined) throw SESSION_ENDED;
      assertConsoleRequest(request, caller.staff!.csrf, publicBaseUrl);
      return authorize(request, reply, caller, scope);
    }
    const blocked = authFailures?.isBlocked(address);
    // An address over its failure budget (a shop's NAT, a partner's egress) still serves the valid
    // generated keys behind it: those 256-bit keys are not found by guessing, so letting them pass
    // tells a guesser nothing. Anything else from that address — a bootstrap key, which an
    // operator may have chosen short, included — is refused before it is looked at.
    const token = parseBearer(header);
    if (blocked && (token === undefined || !looksGenerated(token))) throw tooManyFailures(blocked);

    const repeated = repeatedField(request.raw, 'Authorization');
    if (repeated !== undefined) throw repeated;
    if (header === undefined) throw MISSING_AUTHORIZATION;
    if (token === undefined) {
      if (!/^bearer\b/i.test(header)) throw MALFORMED;
      throw await guessFailed(address, MALFORMED_BEARER);
    }
    const caller = await verifier.verify(token);
    if (caller === undefined) throw blocked ? tooManyFailures(blocked) : await guessFailed(address, UNKNOWN);
    return authorize(request, reply, caller, scope);
  };

  /** The caller is known (a key, or a session): its budget and its scopes, the same for both. */
  const authorize = async (request: FastifyRequest, reply: FastifyReply, caller: Caller, scope: Scope | undefined): Promise<void> => {
    // Known from here on, so the request log line names the caller even when it is refused below.
    request.principal = caller;

    if (perKey) {
      const v = await perKey.hit(caller.budget);
      reply.header('ratelimit-policy', perKey.policy);
      reply.header('ratelimit', FixedWindowLimiter.field(v));
      if (!v.allowed) throw tooMany('key', keyOverLimit(perKey, v));
    }
    if (scope !== undefined && !caller.scopes.includes(scope)) throw insufficientScope(scope, caller.staff ? 'your role' : undefined);
  };

  const unknownPath = (request: FastifyRequest, reply: FastifyReply) => authenticate(request, reply, undefined);

  const routes = async (app: FastifyInstance) => {
    app.decorateRequest('principal', null);
    // The handler of an authenticated request runs as its principal's actor: every write it makes
    // records who made it (activity/activity.context.ts), read by the outbox and nowhere else. Set
    // here, the last hook before the handler, because reading the body leaves the async context.
    // A safe request writes nothing, so the hot reads pay nothing for it.
    app.addHook('preHandler', (request, _reply, done) => {
      if (request.principal === null || request.method === 'GET' || request.method === 'HEAD') done();
      else actingAs(actorOf(request.principal), done);
    });
    app.addHook('onRoute', (route) => {
      if (route.config?.public === true) return;
      const scope = route.config?.scope;
      if (route.url.startsWith('/v1/'))
        return addRouteHook(route, 'onRequest', (request: FastifyRequest, reply: FastifyReply) => authenticate(request, reply, scope));
      // A pattern that is not under /v1 itself ('*', …) may still match /v1 URLs.
      addRouteHook(route, 'onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        if (request.url.startsWith('/v1/')) await unknownPath(request, reply);
      });
    });
  };
  const unknownPaths = async (app: FastifyInstance) => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.is404 && request.url.startsWith('/v1/')) await unknownPath(request, reply);
    });
  };
  return {
    routes: fp(routes, { name: 'auth', dependencies: ['deprecation'] }),
    unknownPaths: fp(unknownPaths, { name: 'auth-unknown-paths', dependencies: ['auth', 'cors'] }),
  };
}
