import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { addressKey } from '../http/edge/client-address.ts';
import { assertSameOrigin, clearSessionCookie, setSessionCookie } from '../http/policies/session-cookie.ts';
import { bodyErrors, commonErrors, errorResponse, INVALID_JSON, MALFORMED, UNEXPECTED_BODY } from '../schemas.ts';
import { CurrentSession, NewSession, SessionIdParams, Sessions } from './session.schemas.ts';
import type { SessionService } from './session.service.ts';
import { PasswordChange } from './staff.schemas.ts';

export interface SessionRoutesOptions {
  readonly sessions: SessionService;
  readonly publicBaseUrl: string;
}

const SIGNED_IN_ONLY = errorResponse`The request is made with an API key, not signed in as a person (${'forbidden'}); a request signed in with the session cookie without the console's \`Origin\` and \`X-CSRF-Token\` (${'csrf_failed'})`;
const HASHING = errorResponse`Too many passwords are being hashed at once, the database is unreachable, or the service is shutting down (${'service_unavailable'}); retry after \`Retry-After\``;

export const sessionRoutes: FastifyPluginAsyncTypebox<SessionRoutesOptions> = async (app, { sessions, publicBaseUrl }) => {
  app.post(
    '/sessions',
    {
      config: { public: true },
      schema: {
        operationId: 'signIn',
        tags: ['Sessions'],
        summary: 'Sign in as a person',
        description:
          "Sets the session cookie (`HttpOnly`, `SameSite=Strict`, `Path=/`; `Secure` and named `__Host-petstore_session` except on plain HTTP to a loopback host, where it is `petstore_session`) and answers the person, their scopes and the session's CSRF token. A session ends after `SESSION_IDLE_MINUTES` without a request and `SESSION_MAX_HOURS` after sign-in. Every failure gets the same 401, whether or not the address is known; failures are limited per client address and per account and address (429 with `Retry-After`, at most until the minute's end). A request with an `Origin` other than the service's is refused (403 `csrf_failed`).",
        'x-stability': 'experimental',
        security: [],
        body: NewSession,
        response: {
          201: { ...CurrentSession, description: 'Signed in; `Set-Cookie` carries the session' },
          400: errorResponse`Missing or invalid fields (${'validation_failed'}); ${INVALID_JSON}; ${MALFORMED}`,
          401: errorResponse`The e-mail address or the password is wrong, or the person may not sign in (${'unauthorized'})`,
          403: errorResponse`An \`Origin\` other than this service's (${'csrf_failed'})`,
          429: errorResponse`Too many failed sign-ins from this address, or to this account from this address (${'rate_limited'}); retry after \`Retry-After\``,
          ...bodyErrors,
          408: commonErrors[408],
          431: commonErrors[431],
          500: commonErrors[500],
          505: commonErrors[505],
          503: HASHING,
        },
      },
    },
    async (request, reply) => {
      assertSameOrigin(request, publicBaseUrl);
      const { token, current } = await sessions.signIn(request.body, addressKey(request.ip));
      setSessionCookie(request, reply, token, sessions.maxAgeSeconds);
      return reply.code(201).send(current);
    },
  );

  app.get(
    '/sessions/current',
    {
      schema: {
        operationId: 'getCurrentSession',
        tags: ['Sessions'],
        summary: 'Get the signed-in person',
        description: 'The person this session is signed in as, their scopes, the session and its CSRF token (for a console that was reloaded).',
        'x-stability': 'experimental',
        response: {
          200: { ...CurrentSession, description: 'The signed-in person' },
          400: errorResponse`A query parameter was sent (${'validation_failed'}); ${MALFORMED}`,
          ...commonErrors,
          403: SIGNED_IN_ONLY,
        },
      },
    },
    async (request) => sessions.current(request.principal!),
  );

  app.delete(
    '/sessions/current',
    {
      schema: {
        operationId: 'signOut',
        tags: ['Sessions'],
        summary: 'Sign out',
        description: 'Ends this session (its cookie is refused from the next request on, on every instance) and clears the cookie.',
        'x-stability': 'experimental',
        response: {
          204: { type: 'null', description: 'Signed out; no body' },
          400: errorResponse`A query parameter was sent (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          ...commonErrors,
          403: SIGNED_IN_ONLY,
        },
      },
    },
    async (request, reply) => {
      await sessions.signOut(request.principal!);
      clearSessionCookie(request, reply);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/sessions',
    {
      schema: {
        operationId: 'listSessions',
        tags: ['Sessions'],
        summary: "List the signed-in person's sessions",
        description: 'Their open sessions (at most 100), newest first; `current` marks this one.',
        'x-stability': 'experimental',
        response: {
          200: { ...Sessions, description: 'The open sessions' },
          400: errorResponse`A query parameter was sent (${'validation_failed'}); ${MALFORMED}`,
          ...commonErrors,
          403: SIGNED_IN_ONLY,
        },
      },
    },
    async (request) => sessions.list(request.principal!),
  );

  app.delete(
    '/sessions',
    {
      schema: {
        operationId: 'endOtherSessions',
        tags: ['Sessions'],
        summary: "End the signed-in person's other sessions",
        description: 'Every session of the person but this one ends at once (a browser left signed in elsewhere).',
        'x-stability': 'experimental',
        response: {
          204: { type: 'null', description: 'Ended; no body' },
          400: errorResponse`A query parameter was sent (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          ...commonErrors,
          403: SIGNED_IN_ONLY,
        },
      },
    },
    async (request, reply) => {
      await sessions.endOthers(request.principal!);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/sessions/:sessionId',
    {
      schema: {
        operationId: 'endSession',
        tags: ['Sessions'],
        summary: "End one of the signed-in person's sessions",
        description: 'That session is refused from its next request on (a browser left signed in elsewhere); the id is from `GET /sessions`.',
        'x-stability': 'experimental',
        params: SessionIdParams,
        response: {
          204: { type: 'null', description: 'Ended; no body' },
          400: errorResponse`Invalid \`sessionId\` (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: errorResponse`No open session of the person with this id (${'not_found'})`,
          ...commonErrors,
          403: SIGNED_IN_ONLY,
        },
      },
    },
    async (request, reply) => {
      await sessions.end(request.principal!, request.params.sessionId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/account/password',
    {
      schema: {
        operationId: 'changePassword',
        tags: ['Sessions'],
        summary: "Change the signed-in person's password",
        description:
          'The current password proves it is them (a wrong one → 403 `forbidden`); the new one must have at least 12 characters and not be one of the common passwords the service knows. Their other sessions end.',
        'x-stability': 'experimental',
        body: PasswordChange,
        response: {
          204: { type: 'null', description: 'Changed; no body' },
          400: errorResponse`The new password is too short or too common, or invalid fields (${'validation_failed'}); ${INVALID_JSON}; ${MALFORMED}`,
          ...bodyErrors,
          ...commonErrors,
          403: errorResponse`The current password is wrong, or the request is made with an API key (${'forbidden'}); a request without the console's \`Origin\` and \`X-CSRF-Token\` (${'csrf_failed'})`,
          503: HASHING,
        },
      },
    },
    async (request, reply) => {
      await sessions.changePassword(request.principal!, request.body);
      return reply.code(204).send(null);
    },
  );
};
