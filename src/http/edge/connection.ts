import { maxHeaderSize, ServerResponse, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance } from 'fastify';
import { AppError } from '../../errors.ts';
import { JSON_TYPE } from '../../json.ts';
import { closeGracefully, ignoreSocketError } from './graceful-close.ts';
import { randomUUID } from 'node:crypto';

/**
 * The connection below Fastify: what node:http would otherwise answer by itself, outside the
 * service's Error shape, and how a connection the service gives up on is closed.
 *
 * - A message llhttp cannot parse (bad request line, `Content-Length` with `Transfer-Encoding`,
 *   bad chunk size, bare LF, NUL in a header, an unknown method or version, headers over the
 *   limit, a head or body not received in time) is answered here with the Error body, `Connection:
 *   close` and no body bytes when the request is a HEAD; then the connection is closed gracefully.
 * - `CONNECT` and an unknown `Expect`, which node:http answers itself (or drops), go to Fastify's
 *   routing like any other request.
 * docs/api.md, "Malformed requests", states these rules.
 */

const ANSWERED = Symbol('answered');

// node:http internals read here, and only here: the parser of a connection (`parser.incoming`
// is the last request whose head it parsed) and the response being written (`_httpMessage`).
// node:http's own clientError default reads the same two to decide whether it may answer.
interface ServerSocket extends Socket {
  parser?: { incoming?: IncomingMessage | null } | null;
  _httpMessage?: ServerResponse | null;
  [ANSWERED]?: true;
}

/** What node:http reports of a message llhttp could not parse (or did not receive in time). */
export interface ParseError extends Error {
  code?: string;
  reason?: string;
  rawPacket?: Buffer;
  bytesParsed?: number;
}

// The start of a request line: a method token and a space.
const METHOD = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) /;
const VERSION = / (HTTP\/(\d)\.\d)\r?$/;

/** What the request line of the message the parser failed in says, read from the bytes it failed on. */
function failedRequestLine(err: ParseError): { method?: string; version?: string; major?: string } {
  const packet = err.rawPacket;
  if (!Buffer.isBuffer(packet)) return {};
  const at = Math.min(packet.length, err.bytesParsed ?? packet.length);
  // The failed message starts after the last empty line before the error (the end of an earlier
  // message's head), or with the packet. A head sent in several packets, or after an earlier
  // message's body in the same packet, leaves its request line unknown.
  const before = packet.toString('latin1', 0, at);
  const crlf = before.lastIndexOf('\r\n\r\n');
  const lf = before.lastIndexOf('\n\n');
  const start = Math.max(crlf === -1 ? 0 : crlf + 4, lf === -1 ? 0 : lf + 2);
  const rest = packet.toString('latin1', start, Math.min(packet.length, start + 8192));
  const eol = rest.indexOf('\n');
  const line = eol === -1 ? rest : rest.slice(0, eol);
  const version = VERSION.exec(line);
  return { method: METHOD.exec(line)?.[1], version: version?.[1], major: version?.[2] };
}

/** The answer to a message node:http could not parse (no route, hook or request object exists). */
export function parseErrorAnswer(err: ParseError): AppError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request_timeout', 'the request was not received completely in time');
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('request_header_fields_too_large', `the request line and header fields are larger than ${maxHeaderSize} bytes`);
    case 'HPE_INVALID_METHOD': {
      const { method } = failedRequestLine(err);
      if (method !== undefined) return new AppError('not_implemented', `the method ${method} is not implemented by this service`);
      break;
    }
    case 'HPE_INVALID_VERSION': {
      const { version, major } = failedRequestLine(err);
      if (version !== undefined && major !== '1') return unsupportedVersion(version);
      break;
    }
  }
  const reason = typeof err.reason === 'string' ? ` (${err.reason.replace(/[^\x20-\x7e]/g, '')})` : '';
  return new AppError('bad_request', `the request is not a valid HTTP/1.1 message${reason}`);
}

export function unsupportedVersion(version: string): AppError {
  return new AppError('http_version_not_supported', `${version} is not supported; use HTTP/1.1`);
}

/** The whole response, as bytes: Error body (none for HEAD), `Connection: close`. */
function rawAnswer(answer: AppError, head: boolean): string {
  const body = answer.body;
  const lines = [
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}`,
    `Date: ${new Date().toUTCString()}`,
    `X-Request-Id: ${randomUUID()}`,
    'X-Content-Type-Options: nosniff',
    'Cache-Control: no-store',
    `Content-Type: ${JSON_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n${head ? '' : body}`;
}

/**
 * Fastify's `clientErrorHandler`. A response already under way for this message, or one still
 * owed to an earlier request on the connection, is not interleaved with: the answer waits for
 * the earlier ones, and is dropped if this message's own answer has begun.
 */
export function clientErrorHandler(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
  // Fastify's type describes rawPacket as JSON would show it; node:http gives a Buffer.
  const err = error as unknown as ParseError;
  const s = socket as ServerSocket;
  if (err.code === 'ECONNRESET' || s.destroyed) {
    s.destroy();
    return;
  }
  // After a parse error llhttp fails every later chunk again: answer once.
  if (s[ANSWERED]) return;
  s[ANSWERED] = true;
  this.log.debug({ err }, 'unparseable request');
  answerWhenDue(s, err);
}

function answerWhenDue(s: ServerSocket, err: ParseError): void {
  if (s.destroyed) return;
  const incoming = s.parser?.incoming ?? undefined;
  // The failure is in the body of the last request whose head was parsed (routed, maybe answered).
  const inBody = incoming !== undefined && !incoming.complete ? incoming : undefined;
  const res = s._httpMessage ?? undefined;
  if (res !== undefined && res.req !== inBody) {
    // An earlier request's response is still being written: answer after it.
    res.once('close', () => setImmediate(() => answerWhenDue(s, err)));
    return;
  }
  // This request was answered already, or its answer is being written — whole, as every reply
  // of the service is, so it is queued in the socket before the FIN: nothing more to say.
  if (inBody !== undefined && (res === undefined || res.headersSent)) {
    closeGracefully(s);
    return;
  }
  const method = inBody?.method ?? failedRequestLine(err).method;
  if (s.writable) s.write(rawAnswer(parseErrorAnswer(err), method === 'HEAD'));
  closeGracefully(s);
}

/**
 * While the service shuts down, requests still arriving on open connections are refused before
 * any work (Fastify's own 503 for this has no Error body): 503 with `Retry-After`, and Fastify
 * closes each such connection after its answer.
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  const closing = new AppError('service_unavailable', 'the service is shutting down; retry on a new connection', { 'retry-after': '1' });
  let shuttingDown = false;
  app.addHook('preClose', (done) => {
    shuttingDown = true;
    done();
  });
  app.addHook('onRequest', (_request, _reply, done) => done(shuttingDown ? closing : undefined));
}

/**
 * `CONNECT` (which node:http hands over as a tunnel, or drops) and `Expect` values other than
 * 100-continue (which it answers 417 with no body) are routed by Fastify like any request: the
 * former gets its 405 after authentication, the latter is served (RFC 9110 §10.1.1 lets a
 * server ignore an expectation it does not know).
 */
export function routeWhatNodeAnswers(app: FastifyInstance): void {
  const server = app.server as Server;
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    socket.on('error', ignoreSocketError);
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once('finish', () => {
      res.detachSocket(socket);
      closeGracefully(socket);
    });
    server.emit('request', req, res);
  });
}
