import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { KeyVerifier } from '../keys/key.service.ts';
import type { Caller, Scope } from '../keys/key.types.ts';

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
// RFC 6750 §2.1: the scheme is case-insensitive; the token is a b64token.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}

/**
 * Authentication runs in onRequest, before the body is read or validated, for everything under
 * /v1 except public routes — unknown /v1 paths included, so routes cannot be probed without a key.
 */
export function registerAuth(app: FastifyInstance, verifier: KeyVerifier): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.config.public === true || !request.url.startsWith('/v1/')) return;
    // Per-key data, and refusals of it, must not be kept by shared or browser caches.
    reply.header('cache-control', 'no-store');
    const header = request.headers.authorization;
    const token = parseBearer(header);
    if (token === undefined) {
      const why = header === undefined ? 'missing Authorization header; send Authorization: Bearer <API key>' : 'Authorization header is not of the form Bearer <API key>';
      // RFC 6750 §3.1: error="invalid_token" once a bearer token was presented at all.
      const challenge = header !== undefined && /^bearer\b/i.test(header) ? `${REALM}, error="invalid_token"` : REALM;
      throw new AppError('unauthorized', why, { 'www-authenticate': challenge });
    }
    const principal = await verifier.verify(token);
    if (!principal) {
      throw new AppError('unauthorized', 'API key is unknown or revoked', { 'www-authenticate': `${REALM}, error="invalid_token"` });
    }
    const scope = request.routeOptions.config.scope;
    if (scope !== undefined && !principal.scopes.includes(scope)) {
      throw new AppError('insufficient_scope', `this API key lacks the scope ${scope}`, {
        'www-authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"`,
      });
    }
    request.principal = principal;
  });
}
