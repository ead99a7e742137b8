import { Type, type Static, type TSchema } from 'typebox';
import type { Actor, Changes } from '../activity/activity.schemas.ts';
import type { Category } from '../categories/category.schemas.ts';
import { HEALTH_RECORD_EXAMPLE, type HealthRecord, VOIDED_HEALTH_RECORD_EXAMPLE } from '../health/health.schemas.ts';
import { PET_EXAMPLE, type Pet } from '../pets/pet.schemas.ts';
import type { Hold } from '../holds/hold.schemas.ts';
import { Cursor, Id, Limit } from '../schemas.ts';
import type { Order } from '../store/order.schemas.ts';

/** Every kind of change the service records; an event's `type` is one of these. */
export const EVENT_TYPES = [
  'pet.created',
  'pet.updated',
  'pet.deleted',
  'pet.health.recorded',
  'pet.health.voided',
  'order.placed',
  'order.approved',
  'order.delivered',
  'order.cancelled',
  'category.created',
  'category.updated',
  'category.deleted',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'hold.placed',
  'hold.cancelled',
  'hold.converted',
  'hold.expired',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The animal an event concerns, for the feed's `petId` filter: a `pet.*` event's Pet (or `{id}` of a
 * withdrawn one), the animal of a `pet.health.*` record, of an `order.*` or of a `hold.*`; none for a
 * category or a customer.
 */
export function eventPetId(e: { readonly type: EventType; readonly data: object }): number | undefined {
  // A customer's events are no animal's; a hold's are its animal's, as an order's are.
  if (e.type.startsWith('category.') || e.type.startsWith('customer.')) return undefined;
  const data = e.data as { id?: unknown; petId?: unknown };
  const id = e.type.startsWith('pet.health.') || e.type.startsWith('order.') || e.type.startsWith('hold.') ? data.petId : data.id;
  return typeof id === 'number' ? id : undefined;
}

/**
 * The resource an event is about, as the activity log names it (`pet:42`): the animal of a `pet.*`
 * event (a health record's too), else the order, category, customer or hold itself.
 */
export function eventResource(e: { readonly type: EventType; readonly data: object }): string {
  const kind = e.type.slice(0, e.type.indexOf('.'));
  const id = kind === 'pet' ? eventPetId(e) : (e.data as { id: number }).id;
  return `${kind}:${id}`;
}

/**
 * Whether an event of `type` carries its change's `changes`: an update's do, but a customer's, which
 * are personal data, never travel in an event (docs/events.md, "Customers"); the activity log keeps
 * them for readers holding `customers:read`.
 */
export function eventCarriesChanges(type: EventType): boolean {
  return type.endsWith('.updated') && !type.startsWith('customer.');
}

export const EventTypeSchema = Type.Unsafe<EventType>({ $id: 'EventType', enum: [...EVENT_TYPES], type: 'string', description: 'What changed' });

const ref = <T>(id: string) => Type.Unsafe<T>({ $ref: `${id}#` });
/** What a customer event carries: the customer's id only, never personal data (docs/events.md, "Customers"). */
const CustomerRef = Type.Object({ id: Id('The customer; read it with `GET /customers/{customerId}` (`customers:read`)') }, { additionalProperties: false });
const Deleted = Type.Object({ id: Id('The identifier of the deleted resource; it is never reused') }, { additionalProperties: false });

const AT = '2026-11-22T12:00:00.000Z';
const PET = PET_EXAMPLE;
const ORDER = { id: 7, petId: 1, status: 'placed', createdAt: AT, updatedAt: AT };
const CATEGORY = { id: 7, name: 'Horses' };

/** `pet.created` → `PetCreatedEvent`: the schema's name in the OpenAPI document. */
export const eventSchemaId = (type: EventType): string =>
  `${type
    .split('.')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('')}Event`;

/** An event's id: `evt_` and its position in the feed (42 → `evt_42`). */
export const eventId = (sequence: number): string => `evt_${sequence}`;
/** The number in an event's id (`evt_42` → 42): its position in the feed. */
export const eventSequence = (e: { id: string }): number => Number(e.id.slice('evt_'.length));
export const EVENT_ID_PATTERN = '^evt_[1-9][0-9]*$';

/** The schema of one event type: its `type`, what its `data` is, a description and an example. */
function eventSchema<K extends EventType, D extends TSchema>(type: K, data: D, description: string, example: object) {
  return Type.Object(
    {
      id: Type.String({
        pattern: EVENT_ID_PATTERN,
        description: 'Unique; increases in commit order. The `webhook-id` of its deliveries',
        examples: ['evt_42'],
      }),
      type: Type.Literal(type, { description: 'What changed' }),
      createdAt: Type.String({ format: 'date-time', description: 'When the change was committed (RFC 3339, UTC, milliseconds)', examples: [AT] }),
      data,
      actor: Type.Optional(
        Type.Unsafe<Actor>({ $ref: 'Actor#', description: 'Who made the change; absent on events recorded before the service recorded actors' }),
      ),
      ...(eventCarriesChanges(type) ? { changes: Type.Optional(Type.Unsafe<Changes>({ $ref: 'Changes#' })) } : {}),
    },
    {
      $id: eventSchemaId(type),
      additionalProperties: false,
      description,
      examples: [
        {
          id: 'evt_42',
          type,
          createdAt: AT,
          data: example,
          actor: { type: 'staff', id: 3, name: 'Ada Lovelace' },
          ...(type === 'pet.updated' ? { changes: { status: ['available', 'pending'] } } : {}),
        },
      ],
    },
  );
}

const pet = ref<Pet>('Pet');
const order = ref<Order>('Order');
const category = ref<Category>('Category');
const health = ref<HealthRecord>('HealthRecord');
const hold = ref<Hold>('Hold');
const HOLD = { id: 3, petId: 1, customerId: 1, state: 'live', method: 'sale', until: '2026-11-29T18:00:00.000Z', createdAt: AT, updatedAt: AT };

/**
 * One schema per event type, in EVENT_TYPES order: the body of the feed's items and of every
 * webhook delivery. `data` is the resource as it was right after the change; later versions of
 * the API may add fields to it.
 */
export const EVENT_SCHEMAS = [
  eventSchema('pet.created', pet, 'An animal was added: `data` is the Pet.', PET),
  eventSchema('pet.updated', pet, 'An animal changed: any member updatePet sets, its photos, or its status by an order: `data` is the Pet after the change.', {
    ...PET,
    status: 'pending',
  }),
  eventSchema('pet.deleted', Deleted, 'An animal was withdrawn: `data` is `{id}`.', { id: 1 }),
  eventSchema(
    'pet.health.recorded',
    health,
    "A record was added to an animal's health log: `data` is the HealthRecord. Read with `health:read`.",
    HEALTH_RECORD_EXAMPLE,
  ),
  eventSchema(
    'pet.health.voided',
    health,
    'A health record was voided: `data` is the HealthRecord, with `voided`. Read with `health:read`.',
    VOIDED_HEALTH_RECORD_EXAMPLE,
  ),
  eventSchema('order.placed', order, 'An order was placed (its animal becomes `pending`; a `pet.updated` follows): `data` is the Order.', ORDER),
  eventSchema('order.approved', order, 'An order was approved: `data` is the Order.', { ...ORDER, status: 'approved' }),
  eventSchema('order.delivered', order, 'An order was delivered (its animal becomes `sold`): `data` is the Order.', { ...ORDER, status: 'delivered' }),
  eventSchema('order.cancelled', order, 'An order was cancelled (its animal becomes `available` again): `data` is the Order.', {
    ...ORDER,
    status: 'cancelled',
  }),
  eventSchema('category.created', category, 'A category was added: `data` is the Category.', CATEGORY),
  eventSchema('category.updated', category, 'A category was renamed: `data` is the Category.', { ...CATEGORY, name: 'Ponies' }),
  eventSchema('category.deleted', Deleted, 'A category was deleted: `data` is `{id}`.', { id: 7 }),
  eventSchema(
    'customer.created',
    CustomerRef,
    'A customer was added: `data` is `{id}` (no personal data travels in events: read the Customer with `customers:read`). Read with `customers:read`.',
    { id: 1 },
  ),
  eventSchema('customer.updated', CustomerRef, 'A customer changed: `data` is `{id}`. Read with `customers:read`.', { id: 1 }),
  eventSchema('customer.deleted', CustomerRef, 'A customer was withdrawn or erased: `data` is `{id}`. Read with `customers:read`.', { id: 1 }),
  eventSchema(
    'hold.placed',
    hold,
    'An animal was put on hold for a customer (it becomes `pending`; a `pet.updated` follows): `data` is the Hold. Read with `orders:read`.',
    HOLD,
  ),
  eventSchema(
    'hold.cancelled',
    hold,
    'A hold was cancelled (the animal is `available` again; a `pet.updated` follows): `data` is the Hold. Read with `orders:read`.',
    { ...HOLD, state: 'cancelled' },
  ),
  eventSchema('hold.converted', hold, 'A hold became an order (an `order.placed` follows): `data` is the Hold, with `orderId`. Read with `orders:read`.', {
    ...HOLD,
    state: 'converted',
    orderId: 7,
  }),
  eventSchema(
    'hold.expired',
    hold,
    'A hold reached its `until` (the animal is `available` again; a `pet.updated` follows): `data` is the Hold. Read with `orders:read`.',
    { ...HOLD, state: 'expired' },
  ),
] as const;

/**
 * One recorded change: `data` is the resource after the change (the Pet, the Order, the
 * Category) or, for a deletion, `{id}`. Written in the same transaction as the change.
 */
export type Event = Static<(typeof EVENT_SCHEMAS)[number]>;
export const Event = Type.Unsafe<Event>({
  $id: 'Event',
  description: 'One recorded change; `type` tells which of the event schemas it is',
  examples: [{ id: 'evt_42', type: 'pet.created', createdAt: AT, data: PET }],
  oneOf: EVENT_TYPES.map((type) => ({ $ref: `${eventSchemaId(type)}#` })),
});

export const Events = Type.Array(ref<Event>('Event'), { $id: 'Events', description: 'A page of events, ascending by id (commit order)' });

/**
 * The JSON text of an event: the items of the feed and the body of every webhook delivery are this
 * text, byte for byte, so a signature checked on a delivery holds for the same event replayed.
 */
export function serializeEvent(e: Event): string {
  const { actor } = e;
  const changes = (e as { changes?: Changes }).changes;
  return JSON.stringify({ id: e.id, type: e.type, createdAt: e.createdAt, data: e.data, actor, changes });
}

export const ListEventsQuery = Type.Object(
  {
    limit: Type.Optional(Limit),
    type: Type.Optional(Type.Unsafe<EventType>({ $ref: 'EventType#', description: 'Only events of this type' })),
    petId: Type.Optional(
      Id(
        "Only the events of this animal (its history): the `pet.*` events of the Pet with this id, the `pet.health.*` events of its health records and the `order.*` events of its orders. Combines with `type`; each is still read under the key's scopes",
      ),
    ),
    after: Type.Optional(
      Type.String({
        pattern: '^evt_[1-9][0-9]{0,15}$',
        description:
          "Start after this event: the last one you processed (a delivery's `webhook-id`, or the last item of the last page). Not together with `cursor`",
        examples: ['evt_41'],
      }),
    ),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type ListEventsQuery = Static<typeof ListEventsQuery>;
