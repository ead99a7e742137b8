import { Type, type Static } from 'typebox';
import type { Scope } from '../keys/key.types.ts';
import { Id, Timestamp } from '../schemas.ts';
import { PASSWORD_MAX_LENGTH } from './staff.password.ts';
import { STAFF_EXAMPLE, type Staff } from './staff.schemas.ts';

export const NewSession = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254, description: 'The address the person signs in with', examples: ['ada@shop.example'] }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description: 'Their password', examples: ['tabby-ferret-lantern'] }),
  },
  { $id: 'NewSession', additionalProperties: false, examples: [{ email: 'ada@shop.example', password: 'tabby-ferret-lantern' }] },
);
export type NewSession = Static<typeof NewSession>;

const sessionProperties = {
  id: { ...Id('Identifier of the session'), examples: [12] },
  createdAt: Timestamp('When the person signed in'),
  lastSeenAt: Timestamp('When the session last made a request (to the minute)'),
  expiresAt: Timestamp('When the session ends however active it is (SESSION_MAX_HOURS after sign-in)'),
  current: Type.Boolean({ description: 'Whether it is the session of this request' }),
};
const sessionExample = {
  id: 12,
  createdAt: '2026-11-23T08:55:00.000Z',
  lastSeenAt: '2026-11-23T09:40:00.000Z',
  expiresAt: '2026-11-23T20:55:00.000Z',
  current: true,
};

/** One of a person's open sessions. */
export const Session = Type.Object(sessionProperties, { $id: 'Session', additionalProperties: false, examples: [sessionExample] });
export type Session = Static<typeof Session>;
export const Sessions = Type.Array(Type.Unsafe<Session>({ $ref: 'Session#' }), { $id: 'Sessions', description: "The person's open sessions, newest first" });

/** The signed-in person and what the console needs to act for them. */
export const CurrentSession = Type.Object(
  {
    session: Type.Unsafe<Session>({ $ref: 'Session#' }),
    staff: Type.Unsafe<Staff>({ $ref: 'Staff#' }),
    scopes: Type.Array(Type.Unsafe<Scope>({ $ref: 'Scope#' }), { description: "What the person may do: their role's scopes" }),
    csrfToken: Type.String({
      description: 'Send it as `X-CSRF-Token` with every request that is not GET or HEAD; without it (or from another origin) → 403 `csrf_failed`',
      examples: ['Hk2b…'],
    }),
  },
  {
    $id: 'CurrentSession',
    additionalProperties: false,
    examples: [
      {
        session: sessionExample,
        staff: STAFF_EXAMPLE,
        scopes: ['pets:read', 'pets:write', 'health:read', 'health:write', 'orders:read', 'orders:write', 'customers:read', 'customers:write'],
        csrfToken: 'Hk2bq9Xc0vR4tY7uW1zA3sD5fG8hJ6kL2mN4pQ7rS0e',
      },
    ],
  },
);
export type CurrentSession = Static<typeof CurrentSession>;

export const SessionIdParams = Type.Object({ sessionId: Id('The identifier of the session') }, { additionalProperties: false });
