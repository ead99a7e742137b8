import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../../clock.ts';
import { periodic, type Job } from '../../jobs.ts';
import { AppError } from '../../errors.ts';
import { canonicalJson, JSON_TYPE } from '../../json.ts';
import { entityTag } from '../../preconditions.ts';
import { parseBearer } from './auth.ts';
import type { IdempotencyId, IdempotencyRepository, IdempotentResponse } from '../../events/idempotency.store.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../schemas.ts';
import { addRouteHook } from '../route-hooks.ts';

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

export function malformedIdempotencyKey(): AppError {
  return new AppError('bad_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
}

export function idempotencyKeyReused(): AppError {
  return new AppError('idempotency_key_reused', 'this Idempotency-Key was already used with a different request body; use a new key for a new request');
}

export function idempotencyKeyInUse(): AppError {
  return new AppError('idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed; retry shortly', { 'retry-after': '1' });
}

/** SHA-256 of the body as JSON with object keys sorted, so key order does not matter. */
export function fingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/**
 * What a route hands its write (WriteContext.idempotency) so that the response to an
 * Idempotency-Key request is stored in the same transaction as the change it reports: a
 * committed write is then always replayed, never repeated. It answers `status` (201, a creation,
 * unless told) with `Location: location(result)` (none when `location` is null: POST /pets/bulk)
 * and the route's own serialization of the result.
 * `sealed`: the body holds a secret (createKey's new key); it is stored encrypted under a key
 * derived from the caller's own API key, which the database does not hold, and decrypted for a
 * replay (which presents that API key again: the record belongs to it).
 * undefined when the request has no Idempotency-Key.
 */
export function idempotentResponse<T extends object>(
  request: FastifyRequest,
  reply: FastifyReply,
  location: ((result: T) => string) | null,
  { sealed = false, status = 201 }: { readonly sealed?: boolean; readonly status?: 200 | 201 } = {},
): IdempotentResponse<T> | undefined {
  const claim = request.idempotency;
  if (claim === null) return undefined;
  return {
    id: claim.id,
    respond: (result) => {
      claim.stored = true;
      const body = reply.serializeInput(result as Record<string, unknown>, String(status)) as string;
      return { status, body: sealed ? seal(body, callerToken(request), claim.id) : body, location: location === null ? null : location(result) };
    },
  };
}

// Sealed bodies: `sealed:v1:` + base64url(iv ‖ GCM tag ‖ AES-256-GCM ciphertext), under a key
// derived (HKDF-SHA256) from the caller's bearer token, salted with the record's identity.
const SEALED = 'sealed:v1:';

function callerToken(request: FastifyRequest): string {
  // Authentication accepted this request's token, so it is there and well-formed.
  return parseBearer(request.headers.authorization)!;
}

function sealingKey(token: string, id: IdempotencyId): Buffer {
  return Buffer.from(hkdfSync('sha256', token, `${id.subject}\n${id.operation}\n${id.key}`, 'petstore idempotent response', 32));
}

function seal(body: string, token: string, id: IdempotencyId): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(token, id), iv);
  const encrypted = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
  return SEALED + Buffer.concat([iv, cipher.getAuthTag(), encrypted]).toString('base64url');
}

/** The stored body as sent: opened when it was sealed (throws if `token` is not the one that sealed it). */
function unseal(stored: string, token: string, id: IdempotencyId): string {
  if (!stored.startsWith(SEALED)) return stored;
  const bytes = Buffer.from(stored.slice(SEALED.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(token, id), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

/**
 * Idempotency-Key for routes with config `idempotent`. After auth and body validation, the key is
 * claimed in the database under (key subject, operation, key):
 * - fresh → the request runs; its write stores the 2xx response in its own transaction
 *   (idempotentResponse), anything else releases the claim;
 * - same body, answered → the stored response is replayed with `Idempotent-Replayed: true`;
 * - same body, still in flight → 409 idempotency_key_in_use; different body → 422 idempotency_key_reused.
 * Records are kept 24 h (older ones are ignored); idempotencyPurge removes them hourly. Depends on
 * auth: a key is claimed for the caller authentication found.
 */
export const idempotencyPlugin = fp(idempotency, { name: 'idempotency', dependencies: ['auth'] });

interface IdempotencyOptions {
  readonly repo: IdempotencyRepository;
  readonly clock: Clock;
}

async function idempotency(app: FastifyInstance, { repo, clock }: IdempotencyOptions): Promise<void> {
  app.decorateRequest('idempotency', null);

  const claimFor = (operation: string, etag: boolean): preHandlerHookHandler =>
    async function claim(request: FastifyRequest, reply: FastifyReply) {
      const raw = request.headers['idempotency-key'];
      if (raw === undefined) return;
      const key = typeof raw === 'string' ? parseIdempotencyKey(raw) : undefined;
      if (key === undefined) throw malformedIdempotencyKey();
      const id = { subject: request.principal!.subject, operation, key };
      const print = fingerprint(request.body);
      const now = clock.now().getTime();
      const existing = await repo.claim(id, print, new Date(now), new Date(now - IDEMPOTENCY_RETENTION_MS), new Date(now - IDEMPOTENCY_ABANDONED_MS));
      if (existing === undefined) {
        request.idempotency = { id, stored: false };
        return;
      }
      if (existing.fingerprint !== print) throw idempotencyKeyReused();
      if (existing.response === undefined) throw idempotencyKeyInUse();
      const { status, location } = existing.response;
      const body = unseal(existing.response.body, callerToken(request), id);
      if (location !== null) reply.header('location', location);
      // The tag of the replayed representation: the same digest the first response carried.
      if (etag) reply.header('etag', entityTag(JSON.parse(body) as object));
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
    addRouteHook(route, 'preHandler', claimFor(`${[route.method].flat().join(',')} ${route.url}`, route.config.etag === true));
    addRouteHook(route, 'onSend', settle);
  });
}

/** The job that deletes the records older than IDEMPOTENCY_RETENTION_MS, hourly. */
export function idempotencyPurge({ repo, clock }: IdempotencyOptions, log: FastifyBaseLogger): Job {
  return periodic(
    PURGE_EVERY_MS,
    () => repo.purge(new Date(clock.now().getTime() - IDEMPOTENCY_RETENTION_MS)),
    (err) => log.warn({ err }, 'purging idempotency keys failed'),
  );
}
