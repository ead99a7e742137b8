import { Type, type Static } from 'typebox';

/** Every kind of change the service records; an event's `type` is one of these. */
export const EVENT_TYPES = [
  'pet.created',
  'pet.updated',
  'pet.deleted',
  'order.placed',
  'order.approved',
  'order.delivered',
  'order.cancelled',
  'category.created',
  'category.updated',
  'category.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EventTypeSchema = Type.Unsafe<EventType>({ $id: 'EventType', enum: [...EVENT_TYPES], type: 'string', description: 'What changed' });

/**
 * One recorded change: `data` is the resource after the change (the Pet, the Order, the
 * Category) or, for a deletion, `{id}`. Written in the same transaction as the change.
 */
export const Event = Type.Object(
  {
    id: Type.String({ pattern: '^evt_[1-9][0-9]*$', description: 'Unique; increases in commit order', examples: ['evt_42'] }),
    type: Type.Unsafe<EventType>({ $ref: 'EventType#' }),
    createdAt: Type.String({ format: 'date-time', description: 'When the change was committed (RFC 3339, UTC, milliseconds)', examples: ['2026-11-22T12:00:00.000Z'] }),
    data: Type.Object({}, { additionalProperties: true, description: 'The resource after the change, or `{id}` for a deletion' }),
  },
  { $id: 'Event', additionalProperties: false },
);
export type Event = Static<typeof Event>;
