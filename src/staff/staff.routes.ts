import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { serviceOrigin } from '../http/policies/session-cookie.ts';
import { linkNext } from '../paging.ts';
import { bodyErrors, commonErrors, errorResponse, INVALID_JSON, invalidIds, MALFORMED, PageQuery, UNEXPECTED_BODY } from '../schemas.ts';
import type { Caller } from '../keys/key.types.ts';
import { AcceptInvitation, InvitedStaff, NewStaff, Staff, StaffIdParams, StaffList, StaffPatch } from './staff.schemas.ts';
import type { StaffActor, StaffService } from './staff.service.ts';

export interface StaffRoutesOptions {
  readonly staff: StaffService;
  readonly base: string;
  readonly publicBaseUrl: string;
}

const badId = invalidIds(['staffId']);
const NO_PERSON = errorResponse`No person with this id (${'not_found'})`;
const NOT_MANAGED = errorResponse`The caller lacks \`staff:admin\`, or is not an owner and the person is (or would become) an owner or a manager (${'insufficient_scope'}); a request signed in with the session cookie without the console's \`Origin\` and \`X-CSRF-Token\` (${'csrf_failed'})`;

const actor = (caller: Caller): StaffActor => (caller.staff ? { owner: caller.owner, staffId: caller.staff.id } : { owner: caller.owner });

export const staffRoutes: FastifyPluginAsyncTypebox<StaffRoutesOptions> = async (app, { staff, base, publicBaseUrl }) => {
  const origin = (request: FastifyRequest) => serviceOrigin(request, publicBaseUrl);

  app.get(
    '/staff',
    {
      config: { scope: 'staff:read' },
      schema: {
        operationId: 'listStaff',
        tags: ['Staff'],
        summary: 'List the staff',
        description: 'The people who sign in to the console, ascending by id, deactivated ones included; paged like `GET /pets` (`Link: rel="next"`).',
        'x-stability': 'experimental',
        querystring: PageQuery,
        response: {
          200: { ...StaffList, description: 'A page of the staff' },
          400: errorResponse`Invalid \`limit\` or \`cursor\`, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for this listing (${'invalid_cursor'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const page = await staff.list(request.query);
      linkNext(reply, page, base, '/staff', { limit: request.query.limit });
      return page.items;
    },
  );

  app.post(
    '/staff',
    {
      config: { scope: 'staff:admin' },
      schema: {
        operationId: 'inviteStaff',
        tags: ['Staff'],
        summary: 'Invite a person',
        description:
          'Makes an account in state `invited` and answers its one-time invitation link (valid 72 hours, once), which only this response shows: hand it to the person, who opens it and chooses a password. No e-mail is sent (the [API guide](/docs/api.md), "Staff and sessions", says how an operator would add one). An owner invites to any role; anyone else holding `staff:admin` (a manager) only clerks and viewers.',
        'x-stability': 'experimental',
        body: NewStaff,
        response: {
          201: { ...InvitedStaff, description: 'Invited; `Location` names the person. Hand over `invitation.url` now: it is never shown again' },
          400: errorResponse`Missing or invalid fields, an unknown field (${'validation_failed'}); ${INVALID_JSON}; ${MALFORMED}`,
          409: errorResponse`A person with this e-mail address exists already (${'staff_exists'})`,
          ...bodyErrors,
          ...commonErrors,
          403: NOT_MANAGED,
        },
      },
    },
    async (request, reply) => {
      const invited = await staff.invite(request.body, actor(request.principal!), origin(request));
      return reply.code(201).header('location', `${base}/staff/${invited.staff.id}`).send(invited);
    },
  );

  app.get(
    '/staff/:staffId',
    {
      config: { scope: 'staff:read' },
      schema: {
        operationId: 'getStaff',
        tags: ['Staff'],
        summary: 'Get a person',
        description: 'The person: name, e-mail address, role, state and last sign-in — never a password or a link.',
        'x-stability': 'experimental',
        params: StaffIdParams,
        response: {
          200: { ...Staff, description: 'The person' },
          400: errorResponse`${badId}, or a query parameter (${'validation_failed'}); ${MALFORMED}`,
          404: NO_PERSON,
          ...commonErrors,
        },
      },
    },
    async (request) => staff.get(request.params.staffId),
  );

  app.patch(
    '/staff/:staffId',
    {
      config: { scope: 'staff:admin' },
      schema: {
        operationId: 'updateStaff',
        tags: ['Staff'],
        summary: "Change a person's name or role",
        description:
          'The new role applies from their next request on. The last active owner stays an owner (409 `last_owner`). An owner changes anyone; a manager only clerks and viewers, and only to clerk or viewer.',
        'x-stability': 'experimental',
        params: StaffIdParams,
        body: StaffPatch,
        response: {
          200: { ...Staff, description: 'The person as changed' },
          400: errorResponse`${badId}, no field, invalid fields or an unknown field (${'validation_failed'}); ${INVALID_JSON}; ${MALFORMED}`,
          404: NO_PERSON,
          409: errorResponse`The person is the last active owner (${'last_owner'})`,
          ...bodyErrors,
          ...commonErrors,
          403: NOT_MANAGED,
        },
      },
    },
    async (request) => staff.update(request.params.staffId, request.body, actor(request.principal!)),
  );

  app.post(
    '/staff/:staffId/reset',
    {
      config: { scope: 'staff:admin' },
      schema: {
        operationId: 'resetStaffPassword',
        tags: ['Staff'],
        summary: "Reset a person's password",
        description:
          "Owners only. The person's password stops working and their sessions end at once; the answer carries a new one-time link (72 hours, once) with which they choose a new password.",
        'x-stability': 'experimental',
        params: StaffIdParams,
        response: {
          200: { ...InvitedStaff, description: 'Reset; hand over `invitation.url` now: it is never shown again' },
          400: errorResponse`${badId} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: NO_PERSON,
          ...commonErrors,
          403: errorResponse`The caller is not an owner or lacks \`staff:admin\` (${'insufficient_scope'}); the person is deactivated (${'forbidden'}); a request signed in with the session cookie without the console's \`Origin\` and \`X-CSRF-Token\` (${'csrf_failed'})`,
        },
      },
    },
    async (request) => staff.reset(request.params.staffId, actor(request.principal!), origin(request)),
  );

  app.post(
    '/staff/:staffId/deactivate',
    {
      config: { scope: 'staff:admin' },
      schema: {
        operationId: 'deactivateStaff',
        tags: ['Staff'],
        summary: 'Deactivate a person',
        description:
          'The person can no longer sign in, their sessions end at once (their next request gets 401) and an open invitation link stops working. The last active owner cannot be deactivated (409 `last_owner`). Deactivating a deactivated person changes nothing.',
        'x-stability': 'experimental',
        params: StaffIdParams,
        response: {
          200: { ...Staff, description: 'The person, deactivated' },
          400: errorResponse`${badId} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: NO_PERSON,
          409: errorResponse`The person is the last active owner (${'last_owner'})`,
          ...commonErrors,
          403: NOT_MANAGED,
        },
      },
    },
    async (request) => staff.deactivate(request.params.staffId, actor(request.principal!)),
  );

  app.post(
    '/invitations/accept',
    {
      config: { public: true },
      schema: {
        operationId: 'acceptInvitation',
        tags: ['Staff'],
        summary: 'Take up an invitation or reset link',
        description:
          'Needs no key or session: the token is the proof. Sets the password of the person the link was made for (at least 12 characters, not one of the common passwords the service knows) and makes them `active`; the link then stops working. Sign in next with `POST /sessions`.',
        'x-stability': 'experimental',
        security: [],
        body: AcceptInvitation,
        response: {
          200: { ...Staff, description: 'The person, active' },
          400: errorResponse`The link is unknown, used or expired (${'invalid_invitation'}); the password is too short or too common, or invalid fields (${'validation_failed'}); ${INVALID_JSON}; ${MALFORMED}`,
          ...bodyErrors,
          408: commonErrors[408],
          431: commonErrors[431],
          500: commonErrors[500],
          505: commonErrors[505],
          503: errorResponse`Too many passwords are being hashed at once, the database is unreachable, or the service is shutting down (${'service_unavailable'}); retry after \`Retry-After\``,
        },
      },
    },
    async (request) => staff.accept(request.body),
  );
};
