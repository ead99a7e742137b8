import { Type, type Static } from 'typebox';
import { Id, TEXT_PATTERN, Timestamp } from '../schemas.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './staff.password.ts';
import { ROLES, type Role } from './staff.roles.ts';

export const STAFF_STATES = ['invited', 'active', 'deactivated'] as const;
export type StaffState = (typeof STAFF_STATES)[number];

export const RoleSchema = Type.Unsafe<Role>({
  $id: 'Role',
  type: 'string',
  enum: [...ROLES],
  description: 'What a person may do: the scopes of the role (the [API guide](/docs/api.md), "Roles")',
});
const roleRef = Type.Unsafe<Role>({ $ref: 'Role#' });

const name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: TEXT_PATTERN,
  description: 'The name the staff know the person by',
  examples: ['Ada Byrne'],
});
const email = Type.String({
  format: 'email',
  maxLength: 254,
  description: 'The address the person signs in with; compared and stored in lower case, one person per address',
  examples: ['ada@shop.example'],
});
const password = (description: string) => Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description, examples: ['tabby-ferret-lantern'] });
const nullableTimestamp = (description: string) => Type.Union([Timestamp(description), Type.Null()], { description: `${description}; null when not yet` });

export const STAFF_EXAMPLE = {
  id: 3,
  name: 'Ada Byrne',
  email: 'ada@shop.example',
  role: 'clerk',
  state: 'active',
  createdAt: '2026-11-22T12:00:00.000Z',
  lastSignInAt: '2026-11-23T08:55:00.000Z',
} as const;

/** A person of the staff, as anyone holding staff:read sees them: never a password or a link. */
export const Staff = Type.Object(
  {
    id: { ...Id('Identifier of the person'), examples: [3] },
    name,
    email,
    role: roleRef,
    state: Type.Unsafe<StaffState>({
      type: 'string',
      enum: [...STAFF_STATES],
      description: '`invited`: has not yet set a password through their link; `active`: may sign in; `deactivated`: may not, and their sessions were ended',
    }),
    createdAt: Timestamp('When the person was invited'),
    lastSignInAt: nullableTimestamp('When the person last signed in'),
  },
  { $id: 'Staff', additionalProperties: false, examples: [STAFF_EXAMPLE] },
);
export type Staff = Static<typeof Staff>;
export const StaffList = Type.Array(Type.Unsafe<Staff>({ $ref: 'Staff#' }), { $id: 'StaffList', description: 'A page of the staff, ascending by id' });

export const NewStaff = Type.Object(
  { name, email, role: roleRef },
  { $id: 'NewStaff', additionalProperties: false, examples: [{ name: 'Ada Byrne', email: 'ada@shop.example', role: 'clerk' }] },
);
export type NewStaff = Static<typeof NewStaff>;

export const StaffPatch = Type.Object(
  { name: Type.Optional(name), role: Type.Optional(roleRef) },
  { $id: 'StaffPatch', additionalProperties: false, minProperties: 1, examples: [{ role: 'manager' }] },
);
export type StaffPatch = Static<typeof StaffPatch>;

/** A person with the one-time link that lets them set their password (an invitation or a reset). */
export const InvitedStaff = Type.Object(
  {
    staff: Type.Unsafe<Staff>({ $ref: 'Staff#' }),
    invitation: Type.Object(
      {
        url: Type.String({
          description:
            'The one-time link to hand to the person (no e-mail is sent): it opens the console, where they choose their password. Shown in this response only; the service keeps only its hash',
          examples: ['https://shop.example/console/#/welcome?token=psi_Q2x…'],
        }),
        token: Type.String({ description: 'The secret the link carries, for a client of its own (`POST /invitations/accept`)', examples: ['psi_Q2x…'] }),
        expiresAt: Timestamp('When the link stops working (72 hours after it was made); it works once'),
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: 'InvitedStaff',
    additionalProperties: false,
    examples: [
      {
        staff: { ...STAFF_EXAMPLE, state: 'invited', lastSignInAt: null },
        invitation: {
          url: 'https://shop.example/console/#/welcome?token=psi_Q2xv1Yk8m3Jt0bW5nR7sLp4cF6dH9gA2eZ1uI0oKq3w',
          token: 'psi_Q2xv1Yk8m3Jt0bW5nR7sLp4cF6dH9gA2eZ1uI0oKq3w',
          expiresAt: '2026-11-25T12:00:00.000Z',
        },
      },
    ],
  },
);
export type InvitedStaff = Static<typeof InvitedStaff>;

export const AcceptInvitation = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 100, description: 'The token of the invitation or reset link', examples: ['psi_Q2x…'] }),
    password: password(`The password to sign in with: at least ${PASSWORD_MIN_LENGTH} characters, not one of the common passwords the service knows`),
  },
  {
    $id: 'AcceptInvitation',
    additionalProperties: false,
    examples: [{ token: 'psi_Q2xv1Yk8m3Jt0bW5nR7sLp4cF6dH9gA2eZ1uI0oKq3w', password: 'tabby-ferret-lantern' }],
  },
);
export type AcceptInvitation = Static<typeof AcceptInvitation>;

export const PasswordChange = Type.Object(
  {
    currentPassword: password('The password the person signs in with now'),
    newPassword: password(`The new password: at least ${PASSWORD_MIN_LENGTH} characters, not one of the common passwords the service knows`),
  },
  { $id: 'PasswordChange', additionalProperties: false, examples: [{ currentPassword: 'tabby-ferret-lantern', newPassword: 'otter-quilt-harbour' }] },
);
export type PasswordChange = Static<typeof PasswordChange>;

export const StaffIdParams = Type.Object({ staffId: Id('The identifier of the person') }, { additionalProperties: false });
