// The staff session cookie and the proof a cookie-authenticated request came from the console
// (docs/api.md, "Sessions"): where the cookie's attributes are decided, where it is read, and the
// CSRF rule. Bearer keys never come from here: a cookie only ever holds a session token.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';

/** The cookie's name when it is Secure: `__Host-` makes the browser refuse it unless Secure, Path=/ and without Domain. */
export const SECURE_COOKIE = '__Host-petstore_session';
/** Its name on plain HTTP to a loopback address (development), where a Secure cookie would not be sent back. */
export const PLAIN_COOKIE = 'petstore_session';
export const CSRF_HEADER = 'x-csrf-token';

export const CSRF_FAILED = new AppError(
  'csrf_failed',
  "a request signed in with the session cookie that changes something must come from the console: an Origin header equal to this service's origin and the session's X-CSRF-Token",
);

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Whether the cookie is Secure: always, except on plain HTTP to a loopback host (a developer's machine). */
export function secureCookie(request: FastifyRequest): boolean {
  return request.protocol === 'https' || !LOOPBACK.test(request.hostname);
}

/** The session token the request's cookie carries, if any (only the name this request's scheme uses). */
export function sessionToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const name = secureCookie(request) ? SECURE_COOKIE : PLAIN_COOKIE;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function cookie(request: FastifyRequest, value: string, maxAge: number): string {
  const secure = secureCookie(request);
  return `${secure ? SECURE_COOKIE : PLAIN_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number): void {
  reply.header('set-cookie', cookie(request, token, maxAgeSeconds));
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', cookie(request, '', 0));
}

/** This service's origin: PUBLIC_BASE_URL's when set, else the one the request was sent to (scheme and Host, as TRUST_PROXY lets them be read). */
export function serviceOrigin(request: FastifyRequest, publicBaseUrl: string): string {
  return publicBaseUrl ? new URL(publicBaseUrl).origin : `${request.protocol}://${request.host}`;
}

/** A request from another origin (sign-in included: no one is signed in by another site's form) → 403 csrf_failed. */
export function assertSameOrigin(request: FastifyRequest, publicBaseUrl: string): void {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== serviceOrigin(request, publicBaseUrl)) throw CSRF_FAILED;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The CSRF rule of a cookie-authenticated request: one that is not safe must carry an Origin equal
 * to this service's and the session's token in X-CSRF-Token; else 403 csrf_failed. SameSite=Strict
 * keeps the cookie off other sites' requests already; this also holds where it would not (a
 * sibling subdomain, an old browser).
 */
export function assertConsoleRequest(request: FastifyRequest, csrf: string, publicBaseUrl: string): void {
  if (SAFE.has(request.method)) return;
  const origin = request.headers.origin;
  const sent = request.headers[CSRF_HEADER];
  if (origin === undefined || origin !== serviceOrigin(request, publicBaseUrl) || typeof sent !== 'string') throw CSRF_FAILED;
  const a = Buffer.from(sent);
  const b = Buffer.from(csrf);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw CSRF_FAILED;
}
