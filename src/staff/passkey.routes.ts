import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { addressKey } from '../http/edge/client-address.ts';
import { assertSameOrigin, serviceOrigin, setSessionCookie } from '../http/policies/session-cookie.ts';
import { bodyErrors, commonErrors, errorResponse, INVALID_JSON, MALFORMED, UNEXPECTED_BODY } from '../schemas.ts';
import { Passkey, PasskeyAssertion, PasskeyIdParams, PasskeyOptions, PasskeyRegistration, Passkeys } from './passkey.schemas.ts';
import { type PasskeyService, relyingParty } from './passkey.service.ts';
import { CurrentSession } from './session.schemas.ts';
import type { SessionService } from './session.service.ts';

export interface PasskeyRoutesOptions {
  readonly passkeys: PasskeyService;
  readonly sessions: SessionService;
  readonly publicBaseUrl: string;
  /** The relying party's name the browser shows (STORE_NAME). */
  readonly storeName: string;
}

const SIGNED_IN_ONLY = errorResponse`The request is made with an API key, not signed in as a person (${'forbidden'}); a request signed in with the session cookie without the console's \`Origin\` and \`X-CSRF-Token\` (${'csrf_failed'})`;
const UNAVAILABLE = errorResponse`The database is unreachable or the service is shutting down (${'service_unavailable'}); retry after \`Retry-After\``;

export const passkeyRoutes: FastifyPluginAsyncTypebox<PasskeyRoutesOptions> = async (app, { passkeys, sessions, publicBaseUrl, storeName }) => {
  // The relying party is the service's own origin, the one the CSRF check compares `Origin` with.
  const rp = (request: FastifyRequest) => relyingParty(serviceOrigin(request, publicBaseUrl), storeName);

  app.post(
    '/sessions/passkey/options',
    {
      config: { public: true },
      schema: {
        operationId: 'passkeySignInOptions',
        tags: ['Sessions'],
        summary: 'Begin a sign-in with a passkey',
        description:
          "The options to hand to `startAuthentication()` (@simplewebauthn/browser) or `navigator.credentials.get()`: a challenge (single use, valid 5 minutes, kept in the database so any instance can finish the sign-in), the relying party (this service's host) and user verification required. No passkey is listed: the browser offers those it holds for this site.",
        'x-stability': 'experimental',
        security: [],
        response: {
          200: { ...PasskeyOptions, description: 'The options of the sign-in' },
          400: errorResponse`A query parameter or a body was sent (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          403: errorResponse`An \`Origin\` other than this service's (${'csrf_failed'})`,
          408: commonErrors[408],
          431: commonErrors[431],
          500: commonErrors[500],
          505: commonErrors[505],
          503: UNAVAILABLE,
        },
      },
    },
    async (request) => {
      assertSameOrigin(request, publicBaseUrl);
      return passkeys.signInOptions(rp(request));
    },
  );

  app.post(
    '/sessions/passkey',
    {
      config: { public: true },
      schema: {
        operationId: 'signInWithPasskey',
        tags: ['Sessions'],
        summary: 'Sign in with a passkey',
        description:
          "Verifies the result of `startAuthentication()` against the challenge of `POST /sessions/passkey/options` (taken: a second use is refused), the passkey's public key, this service's origin and host, and the person's verification; then, like `POST /sessions`, sets the session cookie and answers the person, their scopes and the CSRF token. Failures are counted with failed password sign-ins from the address (429 with `Retry-After`).",
        'x-stability': 'experimental',
        security: [],
        body: PasskeyAssertion,
        response: {
          201: { ...CurrentSession, description: 'Signed in; `Set-Cookie` carries the session' },
          400: errorResponse`Missing or invalid fields (${'validation_failed'}); ${INVALID_JSON}; ${MALFORMED}`,
          401: errorResponse`The challenge is unknown, used already or expired, the passkey is not registered, its signature or origin does not verify, or the person may not sign in (${'unauthorized'})`,
          403: errorResponse`An \`Origin\` other than this service's (${'csrf_failed'})`,
          429: errorResponse`Too many failed sign-ins from this address (${'rate_limited'}); retry after \`Retry-After\``,
          ...bodyErrors,
          408: commonErrors[408],
          431: commonErrors[431],
          500: commonErrors[500],
          505: commonErrors[505],
          503: UNAVAILABLE,
        },
      },
    },
    async (request, reply) => {
      assertSameOrigin(request, publicBaseUrl);
      const { token, current } = await passkeys.signIn(request.body, rp(request), addressKey(request.ip));
      setSessionCookie(request, reply, token, sessions.maxAgeSeconds);
      return reply.code(201).send(current);
    },
  );

  app.post(
    '/account/passkeys/options',
    {
      schema: {
        operationId: 'passkeyRegistrationOptions',
        tags: ['Sessions'],
        summary: 'Begin registering a passkey',
        description:
          "The options to hand to `startRegistration()` (@simplewebauthn/browser) or `navigator.credentials.create()` for the signed-in person: a challenge (single use, valid 5 minutes, for this person only), the relying party (this service's host), a discoverable credential verified by the person, and their passkeys excluded. A person has at most 10 passkeys.",
        'x-stability': 'experimental',
        response: {
          200: { ...PasskeyOptions, description: 'The options of the registration' },
          400: errorResponse`The person has 10 passkeys already (${'passkey_refused'}); a query parameter was sent (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          ...commonErrors,
          403: SIGNED_IN_ONLY,
        },
      },
    },
    async (request) => passkeys.registrationOptions(request.principal!, rp(request)),
  );

  app.post(
    '/account/passkeys',
    {
      schema: {
        operationId: 'addPasskey',
        tags: ['Sessions'],
        summary: 'Register a passkey',
        description:
          "Verifies the result of `startRegistration()` against the challenge of `POST /account/passkeys/options` (taken: a second use is refused), this service's origin and host and the person's verification, and keeps the passkey: the person may then sign in with it alone (`POST /sessions/passkey`).",
        'x-stability': 'experimental',
        body: PasskeyRegistration,
        response: {
          201: { ...Passkey, description: 'Registered' },
          400: errorResponse`The challenge is unknown, used already, expired or another person's, the response does not verify, or the passkey is registered already (${'passkey_refused'}); invalid fields (${'validation_failed'}); ${INVALID_JSON}; ${MALFORMED}`,
          ...bodyErrors,
          ...commonErrors,
          403: SIGNED_IN_ONLY,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await passkeys.register(request.principal!, request.body, rp(request))),
  );

  app.get(
    '/account/passkeys',
    {
      schema: {
        operationId: 'listPasskeys',
        tags: ['Sessions'],
        summary: "List the signed-in person's passkeys",
        description: 'Their passkeys, oldest first, with when each was registered and last signed them in.',
        'x-stability': 'experimental',
        response: {
          200: { ...Passkeys, description: 'The passkeys' },
          400: errorResponse`A query parameter was sent (${'validation_failed'}); ${MALFORMED}`,
          ...commonErrors,
          403: SIGNED_IN_ONLY,
        },
      },
    },
    async (request) => passkeys.list(request.principal!),
  );

  app.delete(
    '/account/passkeys/:passkeyId',
    {
      schema: {
        operationId: 'removePasskey',
        tags: ['Sessions'],
        summary: "Remove one of the signed-in person's passkeys",
        description: 'It no longer signs them in, from the next sign-in on (sessions it opened stay open; end them with `DELETE /sessions`).',
        'x-stability': 'experimental',
        params: PasskeyIdParams,
        response: {
          204: { type: 'null', description: 'Removed; no body' },
          400: errorResponse`Invalid \`passkeyId\` (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: errorResponse`No passkey of the person with this id (${'not_found'})`,
          ...commonErrors,
          403: SIGNED_IN_ONLY,
        },
      },
    },
    async (request, reply) => {
      await passkeys.remove(request.principal!, request.params.passkeyId);
      return reply.code(204).send(null);
    },
  );
};
