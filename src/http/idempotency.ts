import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import type { Clock } from '../clock.ts';
import { periodic } from '../jobs.ts';
import { AppError } from '../errors.ts';
import type { IdempotencyId, IdempotencyRepository, IdempotentResponse } from '../storage/storage.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../schemas.ts';
import { JSON_TYPE } from './error-handler.ts';
import { addRouteHook } from './route-hooks.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** POST routes that honour Idempotency-Key (draft-ietf-httpapi-idempotency-key-header). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** The claimed Idempotency-Key of this request; `stored` once its write recorded the response. */
    idempotency: { readonly id: IdempotencyId; stored: boolean } | null;
  }
}

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A claim still in flight after this long belongs to a request whose process died. */
export const IDEMPOTENCY_ABANDONED_MS = 5 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;
// The draft makes the field an sf-string ("…"); a bare token is accepted as well, as most
// clients send one. The rule is the pattern the OpenAPI document states (src/schemas.ts).
const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

export function parseIdempotencyKey(raw: string): string | undefined {
  if (!KEY.test(raw)) return undefined;
  return raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
}

/** SHA-256 of the body as JSON with object keys sorted, so key order does not matter. */
export function fingerprint(body: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])])) : v;
  return createHash('sha256').update(JSON.stringify(canonical(body) ?? null)).digest('hex');
}

/**
 * What a route hands its write (WriteContext.idempotency) so that the response to an
 * Idempotency-Key request is stored in the same transaction as the change it reports: a
 * committed write is then always replayed, never repeated. `status` and `location` are what the
 * route answers with; the body is the route's own serialization of the result for that status.
 * undefined when the request has no Idempotency-Key.
 */
export function idempotentResponse<T extends object>(request: FastifyRequest, reply: FastifyReply, status: number, location?: (result: T) => string): IdempotentResponse<T> | undefined {
  const claim = request.idempotency;
  if (claim === null) return undefined;
  return {
    id: claim.id,
    respond: (result) => {
      claim.stored = true;
      return { status, body: reply.serializeInput(result as Record<string, unknown>, String(status)) as string, location: location ? location(result) : null };
    },
  };
}

/**
 * Idempotency-Key for routes with config `idempotent`. After auth and body validation, the key is
 * claimed in the database under (key subject, operation, key):
 * - fresh → the request runs; its write stores the 2xx response in its own transaction
 *   (idempotentResponse), anything else releases the claim;
 * - same body, answered → the stored response is replayed with `Idempotent-Replayed: true`;
 * - same body, still in flight → 409 idempotency_key_in_use; different body → 422 idempotency_key_reused.
 * Records are kept 24 h (older ones are ignored, and purged hourly).
 */
export function registerIdempotency(app: FastifyInstance, repo: IdempotencyRepository, clock: Clock): void {
  app.decorateRequest('idempotency', null);

  const claimFor = (operation: string): preHandlerHookHandler => async function claim(request: FastifyRequest, reply: FastifyReply) {
    const raw = request.headers['idempotency-key'];
    if (raw === undefined) return;
    const key = typeof raw === 'string' ? parseIdempotencyKey(raw) : undefined;
    if (key === undefined) throw new AppError('bad_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
    const id = { subject: request.principal!.subject, operation, key };
    const print = fingerprint(request.body);
    const now = clock.now().getTime();
    const existing = await repo.claim(id, print, new Date(now), new Date(now - IDEMPOTENCY_RETENTION_MS), new Date(now - IDEMPOTENCY_ABANDONED_MS));
    if (existing === undefined) {
      request.idempotency = { id, stored: false };
      return;
    }
    if (existing.fingerprint !== print) {
      throw new AppError('idempotency_key_reused', 'this Idempotency-Key was already used with a different request body; use a new key for a new request');
    }
    if (existing.response === undefined) {
      throw new AppError('idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed; retry shortly', { 'retry-after': '1' });
    }
    const { status, body, location } = existing.response;
    if (location !== null) reply.header('location', location);
    return reply.code(status).header('idempotent-replayed', 'true').type(JSON_TYPE).send(body);
  };

  const settle: onSendHookHandler = async (request, reply, payload) => {
    const claim = request.idempotency;
    if (claim === null) return payload;
    request.idempotency = null;
    const ok = reply.statusCode >= 200 && reply.statusCode < 300;
    if (ok && claim.stored) return payload;
    // A route that answers 2xx without having its write store the response is a bug: the claim
    // is released (the key is not wedged) and the failure is logged.
    if (ok) request.log.error({ operation: claim.id.operation }, 'an idempotent route answered without storing its response (idempotentResponse)');
    await repo.release(claim.id);
    return payload;
  };

  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotent) return;
    addRouteHook(route, 'preHandler', claimFor(`${[route.method].flat().join(',')} ${route.url}`));
    addRouteHook(route, 'onSend', settle);
  });

  const purge = periodic(
    PURGE_EVERY_MS,
    () => repo.purge(new Date(clock.now().getTime() - IDEMPOTENCY_RETENTION_MS)),
    (err) => app.log.warn({ err }, 'purging idempotency keys failed'),
  );
  app.addHook('onReady', async () => purge.start());
  app.addHook('onClose', () => purge.stop());
}
