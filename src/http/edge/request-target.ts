import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../../errors.ts';
import { unsupportedVersion } from './connection.ts';

/**
 * What a request names, checked once for every request, after routing and authentication (so a
 * route's own headers — deprecation, rate limits — are on the refusal too, and nothing about the
 * API can be probed without a key), before its body is read:
 * - the version: HTTP/1.x (505 otherwise);
 * - Host: exactly one, with a valid value (RFC 9112 §3.2: 400 otherwise); HTTP/1.0 may omit it;
 * - Content-Type: at most one field (400 otherwise: see repeatedField);
 * - the path: valid percent-encoding of UTF-8 (400 `bad_request`), no trailing slash (404: paths
 *   are matched exactly, `/v1/pets/` is no resource) unless the route's own path has one;
 * - the query: an operation takes only the parameters it documents (400 `validation_failed`).
 * docs/api.md, "Requests", states these rules.
 */

const MALFORMED_TARGET = Symbol('malformedTarget');

interface MarkedRequest extends IncomingMessage {
  [MALFORMED_TARGET]?: true;
}

// RFC 3986 host (IP-literal, IPv4 or reg-name, empty allowed) and optional port (RFC 9112 §3.2).
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::[0-9]*)?$/;
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/**
 * Fastify's `rewriteUrl`: runs before routing. The absolute form of a request target
 * (`GET http://host/v1/pets`, RFC 9112 §3.2.2) is routed, authenticated and logged as its path;
 * a path that is not valid percent-encoding is routed by its literal text (every `%` escaped) and
 * refused after authentication, where the router would have refused it before any route ran.
 */
export function rewriteUrl(req: IncomingMessage): string {
  let url = req.url ?? '/';
  if (url.charCodeAt(0) !== 47 /* / */) {
    const origin = ABSOLUTE_FORM.exec(url);
    if (origin === null) return url; // `*`, an authority (CONNECT), …: the router answers 404 or 400
    url = url.slice(origin[0].length);
    if (url.charCodeAt(0) !== 47) url = `/${url}`;
  }
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (path.includes('%')) {
    try {
      decodeURIComponent(path);
    } catch {
      (req as MarkedRequest)[MALFORMED_TARGET] = true;
      return path.replaceAll('%', '%25') + (q === -1 ? '' : url.slice(q));
    }
  }
  return url;
}

/**
 * How many header fields named `name` (lowercase) a request has: node:http keeps only the first
 * of some (Host, Authorization), so only the raw list tells that there were several.
 */
export function headerFieldCount(raw: IncomingMessage, name: string): number {
  let count = 0;
  const headers = raw.rawHeaders;
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i].length === name.length && headers[i].toLowerCase() === name) count++;
  }
  return count;
}

/**
 * node:http keeps the first of several Authorization or Content-Type fields and drops the others
 * without a word, so which credentials or which media type the client meant is unknown: a request
 * with several is refused (400 `bad_request`). The one rule for both, called by auth.ts and below.
 */
export function repeatedField(raw: IncomingMessage, field: 'Authorization' | 'Content-Type'): AppError | undefined {
  const name = field.toLowerCase();
  if (raw.headers[name] === undefined || headerFieldCount(raw, name) < 2) return undefined;
  return new AppError('bad_request', `a request must have at most one ${field} header field; this one has several`);
}

/** Why the Host header fields of a request are not acceptable, if they are not. */
function hostProblem(raw: IncomingMessage): string | undefined {
  const count = headerFieldCount(raw, 'host');
  if (count > 1) return 'a request must have exactly one Host header field; this one has several';
  if (count === 0) return raw.httpVersion === '1.0' ? undefined : 'a request must have a Host header field';
  return HOST.test(raw.headers.host ?? '') ? undefined : 'the Host header field is not a valid host[:port]';
}

function targetProblem(request: FastifyRequest): AppError | undefined {
  // llhttp parses HTTP/0.9 and HTTP/2.0 request lines as HTTP/1 messages; they are neither.
  if (request.raw.httpVersionMajor !== 1) return unsupportedVersion(`HTTP/${request.raw.httpVersion}`);
  const host = hostProblem(request.raw);
  if (host !== undefined) return new AppError('bad_request', host);
  const contentType = repeatedField(request.raw, 'Content-Type');
  if (contentType !== undefined) return contentType;
  if ((request.raw as MarkedRequest)[MALFORMED_TARGET]) return new AppError('bad_request', 'the request path is not valid percent-encoded UTF-8');
  const url = request.url;
  const q = url.indexOf('?');
  const end = q === -1 ? url.length : q;
  // A route registered with a trailing slash (the reference page, `/docs/`) is its own path.
  if (end > 1 && url.charCodeAt(end - 1) === 47 /* / */ && request.routeOptions.url?.endsWith('/') !== true) {
    return new AppError('not_found', `no resource at ${request.method} ${url.slice(0, end)} (paths have no trailing slash)`);
  }
  return undefined;
}

/** Query string schema of operations that take no query parameters: any parameter is refused. */
const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false } as const;

export function registerRequestTarget(app: FastifyInstance): void {
  app.addHook('preParsing', (request, _reply, payload, done) => done(targetProblem(request), payload));
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as { operationId?: string; querystring?: unknown } | undefined;
    if (schema?.operationId !== undefined && schema.querystring === undefined) route.schema = { ...schema, querystring: NO_QUERY };
  });
}
