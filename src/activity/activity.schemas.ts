import { Type, type Static } from 'typebox';
import { Cursor, Limit } from '../schemas.ts';

const AT = '2026-11-22T12:00:00.000Z';

/**
 * Who made a change: the person signed in (`staff`), the API key (`key`; `id` null for a key
 * configured in PETSTORE_API_KEYS), or the service itself (`service`: a hold that expired, work no
 * request asked for; `petstore CLI` for the operator's commands).
 */
export const Actor = Type.Object(
  {
    type: Type.Union([Type.Literal('staff'), Type.Literal('key'), Type.Literal('service')], {
      description: 'A person signed in, an API key, or the service itself',
    }),
    id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'The person (`/staff/{staffId}`) or the key (`/keys/{keyId}`); null for a configured key and for the service',
    }),
    name: Type.String({ description: 'The name the person or key had when the change was made' }),
  },
  { $id: 'Actor', additionalProperties: false, description: 'Who made a change', examples: [{ type: 'staff', id: 3, name: 'Ada Lovelace' }] },
);
export type Actor = Static<typeof Actor>;

/** The actor of what no request asked for (a hold's expiry). */
export const SERVICE_ACTOR: Actor = Object.freeze({ type: 'service', id: null, name: 'Pet Store' });

/** What a change changed: each member that differs, as `[before, after]`. */
// An array of two rather than a tuple: the serializer checks a tuple's items against their schemas, and these are any JSON.
export const Changes = Type.Record(Type.String(), Type.Array(Type.Unknown(), { minItems: 2, maxItems: 2, description: '[before, after]' }), {
  $id: 'Changes',
  description:
    "What changed: each member of the resource that differs, as `[before, after]` (a member absent on one side is `null` there). A customer's are shown only to readers holding `customers:read`",
  examples: [{ price: ['19.99', '21.50'] }],
});
export type Changes = Static<typeof Changes>;

/** The kind of an entry: an event type (`pet.updated`), or a write no event describes (`key.created`, `session.started`, …). */
const ACTIVITY_TYPE = '^[a-z]+(\\.[a-z_]+)+$';
/** The resource an entry is about: `pet:42`, `order:7`, `key:3`, `staff:2`. */
const RESOURCE = '^[a-z]+:[1-9][0-9]{0,15}$';

export const ActivityEntry = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'Increases with each entry' }),
    at: Type.String({ format: 'date-time', description: 'When the change was made (RFC 3339, UTC)' }),
    actor: Type.Unsafe<Actor>({ $ref: 'Actor#' }),
    type: Type.String({
      pattern: ACTIVITY_TYPE,
      description:
        'What was done: the event type (`pet.updated`) or, for a write no event describes, its kind (`key.created`, `webhook.deleted`, `staff.invited`, `session.started`, …)',
    }),
    resource: Type.String({ pattern: RESOURCE, description: 'What it was done to, as `<kind>:<id>` (`pet:42`)' }),
    changes: Type.Optional(Type.Unsafe<Changes>({ $ref: 'Changes#' })),
  },
  {
    $id: 'ActivityEntry',
    additionalProperties: false,
    description: 'One write: who made it, what it did, to what, and what changed',
    examples: [
      {
        id: 12,
        at: AT,
        actor: { type: 'staff', id: 3, name: 'Ada Lovelace' },
        type: 'pet.updated',
        resource: 'pet:42',
        changes: { price: ['19.99', '21.50'] },
      },
    ],
  },
);
export type ActivityEntry = Static<typeof ActivityEntry>;
export const ActivityEntries = Type.Array(Type.Unsafe<ActivityEntry>({ $ref: 'ActivityEntry#' }), {
  $id: 'ActivityEntries',
  description: 'A page of the activity log, newest first',
});

const ACTOR_FILTER = '^(staff|key):[1-9][0-9]{0,15}$';
export const ActivityFilters = {
  actor: Type.Optional(Type.String({ pattern: ACTOR_FILTER, description: 'Only what this person (`staff:3`) or key (`key:5`) did', examples: ['staff:3'] })),
  resource: Type.Optional(Type.String({ pattern: RESOURCE, description: 'Only what was done to this resource (`pet:42`)', examples: ['pet:42'] })),
  type: Type.Optional(
    Type.String({ pattern: ACTIVITY_TYPE, maxLength: 64, description: 'Only entries of this kind (`pet.updated`)', examples: ['pet.updated'] }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Only entries at or after this time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only entries before this time' })),
};
export const ListActivityQuery = Type.Object(
  { limit: Type.Optional(Limit), cursor: Type.Optional(Cursor), ...ActivityFilters },
  { additionalProperties: false },
);
export type ListActivityQuery = Static<typeof ListActivityQuery>;
export const ActivityCsvQuery = Type.Object(ActivityFilters, { additionalProperties: false });
export type ActivityCsvQuery = Static<typeof ActivityCsvQuery>;
