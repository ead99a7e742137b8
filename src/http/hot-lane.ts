import { createServer, type IncomingMessage, type ServerOptions, type ServerResponse } from 'node:http';
import type { FastifyServerFactory, FastifyServerOptions, RouteOptions } from 'fastify';
import type { Clock } from '../clock.ts';
import type { KeyVerifier } from '../keys/key.service.ts';
import type { Caller, Scope } from '../keys/key.types.ts';
import { listPage } from '../pets/pet.routes.ts';
import { PET_STATUSES, type PetStatus } from '../pets/pet.schemas.ts';
import type { PetService } from '../pets/pet.service.ts';
import { MISSING_KEY, parseBearer } from './auth.ts';
import { deprecationHeaders, type Deprecation } from './deprecation.ts';
import { JSON_TYPE } from './error-handler.ts';
import { FixedWindowLimiter, type Verdict } from './rate-limit.ts';
import { requestId } from './request-id.ts';
import type { ResponseRecorder, Telemetry } from './telemetry.ts';

/**
 * The hot lane: the service's most frequent requests — a page of `GET /v1/pets`, `GET /v1/pets/{id}`
 * and the 401 of either without credentials — answered straight from the node:http request event,
 * with the same status, headers (same order), body, metrics and log line as the Fastify route
 * would give. Everything else, and every request the lane does not recognise exactly, goes to
 * Fastify untouched: other methods and paths, HEAD, any query it does not parse byte for byte
 * (percent-encoding, `+`, repeats, unknown or out-of-range parameters), a body, a bad, unknown or
 * under-scoped key, an address over its failure budget, a key over its rate limit, a missing pet,
 * a bad cursor, a deprecated operation past its sunset, a storage error, shutdown. With
 * CORS_ORIGINS set there is no lane (@fastify/cors adds `Vary` to every answer). The lane changes
 * nothing before it hands a request over: the one write, a rate-limit count, comes last, and a
 * request it hands over after that is refused with 429 anyway.
 *
 * Why it exists (docs/performance.md, lever 14): these requests are a few microseconds of the
 * service's own work inside Fastify's per-request machinery (request and reply objects, hook
 * runners) and its hooks; outside it a 401 costs ≈ 1.1× the bare node:http baseline's, and
 * authenticated reads served in batches (#drain) share one freshness check of the database. The
 * rules stay where they are (auth.ts, rate-limit.ts, deprecation.ts, telemetry.ts, pet.routes.ts)
 * and are called from here. test/http/hot-lane.test.ts sends every request of a corpus to an app
 * with the lane and to one without and requires identical answers, logs and metrics, on every
 * engine.
 */

declare module 'fastify' {
  interface FastifyInstance {
    /** Present when the app was built with the hot lane (tests read its counts). */
    hotLane?: HotLane;
  }
}

const LIST_PATH = '/v1/pets';
const PET_PATH = '/v1/pets/';
const LIMIT = /^(?:[1-9][0-9]?|100)$/;
// What CursorCodec writes: base64url payload, '.', base64url MAC (bounded as the schema bounds it).
const CURSOR = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const CURSOR_MAX = 512;
const PET_ID = /^[1-9][0-9]{0,15}$/;
const DEFAULT_LIMIT = 20;

export interface ListQuery {
  readonly limit: number;
  readonly status?: PetStatus;
  readonly cursor?: string;
}

export type LaneMatch = { readonly op: 'listPets'; readonly query: ListQuery } | { readonly op: 'getPet'; readonly id: number };

// The missing-key 401's own headers (the challenge), as a name, value list.
const CHALLENGE: readonly string[] = Object.entries(MISSING_KEY.headers).flat();
const MISSING_KEY_LENGTH = Buffer.byteLength(MISSING_KEY.body);

const FIRST_PAGE: LaneMatch = Object.freeze({ op: 'listPets', query: Object.freeze({ limit: DEFAULT_LIMIT }) });

/**
 * The operation a request target names, when the lane can read it exactly as Fastify's router,
 * query parser and validator (coercion, `limit` default 20) would; undefined for anything else.
 */
export function matchLane(url: string): LaneMatch | undefined {
  if (!url.startsWith(LIST_PATH)) return undefined;
  if (url.length === LIST_PATH.length) return FIRST_PAGE;
  const c = url.charCodeAt(LIST_PATH.length);
  if (c === 63 /* ? */) {
    const query = parseListQuery(url.slice(LIST_PATH.length + 1));
    return query && { op: 'listPets', query };
  }
  if (c === 47 /* / */) {
    const text = url.slice(PET_PATH.length);
    if (!PET_ID.test(text)) return undefined;
    const id = Number(text);
    return Number.isSafeInteger(id) ? { op: 'getPet', id } : undefined;
  }
  return undefined;
}

/** `limit`, `status` and `cursor`, each at most once, in any order, in their canonical spelling. */
export function parseListQuery(qs: string): ListQuery | undefined {
  if (qs === '') return undefined;
  let limit: number | undefined;
  let status: PetStatus | undefined;
  let cursor: string | undefined;
  for (const pair of qs.split('&')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) return undefined;
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (name === 'limit' && limit === undefined && LIMIT.test(value)) limit = Number(value);
    else if (name === 'status' && status === undefined && (PET_STATUSES as readonly string[]).includes(value)) status = value as PetStatus;
    else if (name === 'cursor' && cursor === undefined && value.length <= CURSOR_MAX && CURSOR.test(value)) cursor = value;
    else return undefined;
  }
  return { limit: limit ?? DEFAULT_LIMIT, ...(status !== undefined ? { status } : {}), ...(cursor !== undefined ? { cursor } : {}) };
}

/** What each lane operation takes from its Fastify route (scope, deprecation, log level). */
interface LaneRoute {
  readonly scope: Scope | undefined;
  /**
   * The headers every answer of the route starts with, as name, value, … in the order Fastify's
   * hooks set them: request id (an empty value at index 1, the request's own goes there),
   * `nosniff`, the deprecation headers, `no-store`. Copied per response (`slice` makes a list of
   * the right size at once; building it with a `push` per header cost ≈ 4 % of a 401's throughput).
   */
  readonly head: readonly (string | number)[];
  /** The whole missing-key 401 header list, made once: head, challenge, type and length. */
  readonly unauthorized: readonly (string | number)[];
  readonly sunset: number;
  readonly record: ResponseRecorder;
}

export interface HotLaneParts {
  readonly pets: PetService;
  readonly verifier: KeyVerifier;
  readonly perKey?: FixedWindowLimiter;
  readonly authFailures?: FixedWindowLimiter;
  readonly telemetry: Telemetry;
  readonly clock: Clock;
  /** API base for `Link` and deprecation links (as the routes use it). */
  readonly base: string;
  readonly docsUrl: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A request the lane serves (an authenticated one waits in a batch, see #drain). */
interface Pending {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly fastify: Handler;
  readonly match: LaneMatch;
  readonly route: LaneRoute;
  readonly start: number;
  token: string;
}

export class HotLane {
  readonly #parts: HotLaneParts;
  readonly #routes = new Map<LaneMatch['op'], LaneRoute>();
  #open = true;
  #pending: Pending[] = [];
  /** Requests the lane answered, requests it handed to Fastify, batches it ran (tests read these). */
  readonly counts = { answered: 0, handedOver: 0, batches: 0 };

  constructor(parts: HotLaneParts) {
    this.#parts = parts;
  }

  /** From Fastify's onRoute: the lane serves an operation only once its route exists. */
  addRoute(route: RouteOptions): void {
    const op = route.schema?.operationId;
    if ((op !== 'listPets' && op !== 'getPet') || route.method !== 'GET') return;
    const d = route.config?.deprecation as Deprecation | undefined;
    const deprecation = d ? Object.entries(deprecationHeaders(d, this.#parts.base, this.#parts.docsUrl)).flat() : [];
    const head = ['x-request-id', '', 'x-content-type-options', 'nosniff', ...deprecation, 'cache-control', 'no-store'];
    this.#routes.set(op, {
      scope: route.config?.scope as Scope | undefined,
      head,
      unauthorized: [...head, ...CHALLENGE, 'content-type', JSON_TYPE, 'content-length', MISSING_KEY_LENGTH],
      sunset: d ? d.sunset.getTime() : Infinity,
      record: this.#parts.telemetry.recorder(route.url, route.logLevel),
    });
  }

  /** From preClose: during shutdown Fastify answers (503 on new requests, return503OnClosing). */
  close(): void {
    this.#open = false;
  }

  /** The server's request listener: the lane's answer, or Fastify's handler. */
  handle(req: IncomingMessage, res: ServerResponse, fastify: Handler): void {
    const match = this.#open && req.method === 'GET' ? matchLane(req.url!) : undefined;
    const route = match && this.#routes.get(match.op);
    if (
      route === undefined ||
      req.headers['content-length'] !== undefined ||
      req.headers['transfer-encoding'] !== undefined ||
      (route.sunset !== Infinity && this.#parts.clock.now().getTime() >= route.sunset)
    ) {
      return this.#handOver(req, res, fastify);
    }
    const p: Pending = { req, res, fastify, match: match!, route, start: performance.now(), token: '' };
    try {
      if (this.#parts.authFailures?.isBlocked(req.socket.remoteAddress!)) return this.#handOver(req, res, fastify);
      const header = req.headers.authorization;
      if (header === undefined) return this.#write(p, 401, p.route.unauthorized.slice(), MISSING_KEY.body, null);
      const token = parseBearer(header);
      if (token === undefined) return this.#handOver(req, res, fastify);
      p.token = token;
    } catch {
      return this.#recover(p);
    }
    this.#pending.push(p);
    if (this.#pending.length === 1) setImmediate(this.#drain);
  }

  /**
   * Authenticated requests are served together once the event loop has read every request that
   * was ready (setImmediate runs right after the poll phase): the key lookups and reads of the
   * whole batch then run in one synchronous stretch, which asks the database whether another
   * process committed once for all of them (DatabaseChanges) instead of once each. Every request
   * of the batch had arrived before that check, so each still sees every commit that finished
   * before it arrived. A request waits at most for the others read in the same loop turn.
   * Requests pipelined on one connection are served concurrently, by Fastify as by the lane; a
   * batched read takes its rate-limit slot at the end of the turn, so of requests pipelined
   * together, which one gets which slot (and, at the limit, which one gets the 429) may differ
   * from the order they were sent in.
   */
  readonly #drain = (): void => {
    const batch = this.#pending;
    this.#pending = [];
    this.counts.batches++;
    for (const p of batch) {
      try {
        const caller = this.#parts.verifier.verify(p.token);
        if (caller instanceof Promise) caller.then((c) => this.#admit(p, c), () => this.#recover(p));
        else this.#admit(p, caller);
      } catch {
        this.#recover(p);
      }
    }
  };

  #admit(p: Pending, caller: Caller | undefined): void {
    if (caller === undefined || (p.route.scope !== undefined && !caller.scopes.includes(p.route.scope))) return this.#handOver(p.req, p.res, p.fastify);
    // The read comes before the rate-limit count, so every hand-over happens before anything is
    // counted (a 404 or a bad cursor then costs the key one request, as in Fastify, not two).
    this.#operate(p.match).then(
      (result) => {
        try {
          if (result === undefined) return this.#handOver(p.req, p.res, p.fastify);
          const perKey = this.#parts.perKey;
          if (perKey === undefined) return this.#send(p, result.body, caller.keyId, result.link);
          const answer = (verdict: Verdict) => {
            // Refused anyway: Fastify counts the hit again (the verdict cannot change) and answers 429.
            if (!verdict.allowed) return this.#handOver(p.req, p.res, p.fastify);
            this.#send(p, result.body, caller.keyId, result.link, perKey.policy, FixedWindowLimiter.field(verdict));
          };
          const verdict = perKey.hit(caller.subject);
          if (verdict instanceof Promise) verdict.then(answer).catch(() => this.#recover(p));
          else answer(verdict);
        } catch {
          this.#recover(p);
        }
      },
      () => this.#recover(p),
    );
  }

  /** The operation's 200 body (and Link), or undefined when Fastify should answer (404, …). */
  async #operate(match: LaneMatch): Promise<{ body: string; link?: string } | undefined> {
    if (match.op === 'getPet') {
      const pet = await this.#parts.pets.get(match.id);
      // The Pet schema's keys in its order: what the route's serializer writes (the test holds both).
      return pet && { body: JSON.stringify(pet) };
    }
    const page = await listPage(this.#parts.pets, this.#parts.base, match.query);
    return { body: typeof page.body === 'string' ? page.body : JSON.stringify(page.body), link: page.link };
  }

  /**
   * A 200: the route's head, then the order Fastify's hooks and handler add the rest in (the
   * rate limit's two headers when the key is limited, Link, type and length).
   */
  #send(p: Pending, body: string, keyId: number | null, link: string | undefined, policy?: string, limit?: string): void {
    const headers = p.route.head.slice();
    if (policy !== undefined) headers.push('ratelimit-policy', policy, 'ratelimit', limit!);
    if (link !== undefined) headers.push('link', link);
    headers.push('content-type', JSON_TYPE, 'content-length', Buffer.byteLength(body));
    this.#write(p, 200, headers, body, keyId);
  }

  /** Sends `headers` (a copy of the route's head: the request id goes in at index 1) and `body`. */
  #write(p: Pending, status: number, headers: (string | number)[], body: string, keyId: number | null): void {
    const id = requestId(p.req);
    headers[1] = id;
    // A flat name, value, … list: node:http writes it as it comes (no key enumeration of an object).
    p.res.writeHead(status, headers);
    p.res.end(body);
    this.counts.answered++;
    p.route.record(id, 'GET', status, performance.now() - p.start, keyId);
  }

  /**
   * Whatever failed in the lane (a storage error, a rejected promise): Fastify answers the request
   * from the start — its error handler gives the Error body (500/503) and logs the failure — as
   * long as nothing was sent yet; a response that broke while being written ends its connection.
   */
  #recover(p: Pending): void {
    if (!p.res.headersSent) this.#handOver(p.req, p.res, p.fastify);
    else p.res.destroy();
  }

  #handOver(req: IncomingMessage, res: ServerResponse, fastify: Handler): void {
    this.counts.handedOver++;
    fastify(req, res);
  }
}

/**
 * Fastify's serverFactory: the HTTP/1.1 server Fastify would create (same options, timeouts and
 * limits, as in fastify/lib/server.js), whose request listener asks the lane first. The lane is
 * attached once the app is built; until then every request goes to Fastify.
 */
export function laneServer(): { factory: FastifyServerFactory; attach(lane: HotLane): void } {
  let lane: HotLane | undefined;
  const factory: FastifyServerFactory = (handler, opts) => {
    const options = opts as FastifyServerOptions & { http?: ServerOptions };
    const server = createServer(options.http ?? {}, (req, res) => (lane === undefined ? handler(req, res) : lane.handle(req, res, handler)));
    server.keepAliveTimeout = options.keepAliveTimeout!;
    server.requestTimeout = options.requestTimeout!;
    server.setTimeout(options.connectionTimeout!);
    if (options.maxRequestsPerSocket! > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket!;
    return server;
  };
  return { factory, attach: (l) => void (lane = l) };
}
