import { Type, type Static } from 'typebox';
import { EVENT_ID_PATTERN, EVENT_TYPES, type EventType } from '../events/event.schemas.ts';
import { Id, TEXT_PATTERN, Timestamp as timestamp } from '../schemas.ts';

const WEBHOOK_URL_MAX = 2048;
const DESCRIPTION_MAX = 500;

const AT = '2026-11-22T12:00:00.000Z';
const nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

const url = Type.String({
  format: 'uri',
  maxLength: WEBHOOK_URL_MAX,
  description:
    'Where events are POSTed: an absolute `https:` URL without credentials, whose host resolves only to public addresses (`http:` only where the operator allows it)',
  examples: ['https://shop.example.com/hooks/petstore'],
});
const events = Type.Union(
  [
    Type.Array(Type.Unsafe<EventType>({ $ref: 'EventType#' }), {
      minItems: 1,
      maxItems: EVENT_TYPES.length,
      uniqueItems: true,
      description: 'The event types sent to this endpoint',
    }),
    Type.Null(),
  ],
  {
    description: 'The event types sent to this endpoint; `null` (or, on creation, no `events`) = every type, including types added later',
    examples: [['pet.created', 'order.placed']],
  },
);
const description = Type.Union([Type.String({ minLength: 1, maxLength: DESCRIPTION_MAX, pattern: TEXT_PATTERN }), Type.Null()], {
  description: 'Free text for your own records (1–500 characters)',
  examples: ['Shop front: hides sold pets'],
});
const enabled = Type.Boolean({
  description:
    'Whether events are sent to it. The service disables an endpoint whose deliveries have all failed for a while; enabling it again resumes with events recorded from then on',
});

export const NewWebhook = Type.Object(
  { url, events: Type.Optional(events), description: Type.Optional(description) },
  { $id: 'NewWebhook', additionalProperties: false, examples: [{ url: 'https://shop.example.com/hooks/petstore', events: ['pet.created', 'pet.updated'] }] },
);
export type NewWebhook = Static<typeof NewWebhook>;

export const WebhookUpdate = Type.Object(
  { url: Type.Optional(url), events: Type.Optional(events), description: Type.Optional(description), enabled: Type.Optional(enabled) },
  { $id: 'WebhookUpdate', additionalProperties: false, minProperties: 1, examples: [{ enabled: true }] },
);
export type WebhookUpdate = Static<typeof WebhookUpdate>;

const webhookFields = {
  id: { ...Id('Unique identifier, assigned by the service'), examples: [3] },
  url,
  events,
  description,
  enabled,
  keyId: nullable(
    Type.Integer({ minimum: 1, examples: [4] }),
    'The API key that registered the endpoint or made its last change (its owner). Deliveries stop when that key is revoked or expires: the endpoint is then disabled at its next delivery. null: a bootstrap key (`PETSTORE_API_KEYS`), or an endpoint registered before endpoints recorded their key; those are not tied to a key',
  ),
  createdAt: timestamp('When the endpoint was registered'),
};
const WEBHOOK_EXAMPLE = {
  id: 3,
  url: 'https://shop.example.com/hooks/petstore',
  events: ['pet.created', 'pet.updated'],
  description: null,
  enabled: true,
  keyId: 4,
  createdAt: AT,
};

export const Webhook = Type.Object(webhookFields, { $id: 'Webhook', additionalProperties: false, examples: [WEBHOOK_EXAMPLE] });
export type Webhook = Static<typeof Webhook>;
export const Webhooks = Type.Array(Type.Unsafe<Webhook>({ $ref: 'Webhook#' }), {
  $id: 'Webhooks',
  description: 'A page of webhook endpoints, ascending by id',
});

const SECRET_PATTERN = '^whsec_[A-Za-z0-9+/]{43}=$';
export const WebhookWithSecret = Type.Object(
  {
    ...webhookFields,
    secret: Type.String({
      pattern: SECRET_PATTERN,
      description:
        'The signing secret (`whsec_` + base64 of 32 random bytes). Shown only in this response: keep it with the receiver, which verifies `webhook-signature` with it',
      examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6V3ofhVwwyk='],
    }),
  },
  { $id: 'WebhookWithSecret', additionalProperties: false, examples: [{ ...WEBHOOK_EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6V3ofhVwwyk=' }] },
);
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
const DELIVERY_TYPES = ['attempt', 'webhook.disabled'] as const;
export type DeliveryType = (typeof DELIVERY_TYPES)[number];

export const Delivery = Type.Object(
  {
    id: { ...Id('Unique identifier of this log entry'), examples: [12] },
    type: Type.Unsafe<DeliveryType>({
      type: 'string',
      enum: [...DELIVERY_TYPES],
      description: '`attempt`: one attempt to deliver an event. `webhook.disabled`: the service disabled the endpoint here (`error` says why)',
    }),
    eventId: nullable(Type.String({ pattern: EVENT_ID_PATTERN, examples: ['evt_42'] }), 'The event sent (its `webhook-id`); null for `webhook.disabled`'),
    attempt: nullable(Type.Integer({ minimum: 1, examples: [1] }), "1 for the event's first attempt, then 2, 3, …; null for `webhook.disabled`"),
    status: Type.Unsafe<DeliveryStatus>({
      type: 'string',
      enum: [...DELIVERY_STATUSES],
      description: '`pending`: not made yet (due at `nextAttemptAt`) or in flight; `succeeded`: answered 2xx in time; `failed`: anything else',
    }),
    httpStatus: nullable(
      Type.Integer({ minimum: 100, maximum: 599, examples: [500] }),
      'The status the endpoint answered; null when none came (or not attempted yet)',
    ),
    durationMs: nullable(Type.Integer({ minimum: 0, examples: [87] }), 'How long the attempt took, in milliseconds'),
    error: nullable(Type.String({ examples: ['HTTP 500'] }), 'Why the attempt failed (never the response body)'),
    nextAttemptAt: nullable(timestamp('When it is due (pending), or when the retry after this failure is due'), 'null when no attempt follows'),
    attemptedAt: nullable(timestamp('When the attempt was made'), 'null while pending'),
    createdAt: timestamp('When the entry was written (the attempt scheduled)'),
  },
  {
    $id: 'Delivery',
    additionalProperties: false,
    examples: [
      {
        id: 12,
        type: 'attempt',
        eventId: 'evt_42',
        attempt: 2,
        status: 'failed',
        httpStatus: 500,
        durationMs: 87,
        error: 'HTTP 500',
        nextAttemptAt: '2026-11-22T12:05:05.000Z',
        attemptedAt: '2026-11-22T12:00:05.000Z',
        createdAt: '2026-11-22T12:00:00.100Z',
      },
    ],
  },
);
export type Delivery = Static<typeof Delivery>;
export const Deliveries = Type.Array(Type.Unsafe<Delivery>({ $ref: 'Delivery#' }), {
  $id: 'Deliveries',
  description: 'A page of the delivery log, newest first',
});

export const WebhookIdParams = Type.Object({ webhookId: Id('The identifier of the webhook endpoint') }, { additionalProperties: false });
export type WebhookIdParams = Static<typeof WebhookIdParams>;
export const DeliveryIdParams = Type.Object(
  { webhookId: Id('The identifier of the webhook endpoint'), deliveryId: Id('The identifier of a delivery log entry of that endpoint') },
  { additionalProperties: false },
);
export type DeliveryIdParams = Static<typeof DeliveryIdParams>;

/** The request headers of every delivery (Standard Webhooks 1.0), documented in the OpenAPI `webhooks` section. */
export const DeliveryHeaders = Type.Object({
  'webhook-id': Type.String({ description: 'The event id; the same on every attempt of that event: receivers deduplicate on it', examples: ['evt_42'] }),
  'webhook-timestamp': Type.String({
    pattern: '^[0-9]+$',
    description: 'When this attempt was sent, in Unix seconds; refuse deliveries too far from your clock',
    examples: ['1795003200'],
  }),
  'webhook-signature': Type.String({
    description:
      'Space-separated signatures `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed with the secret\'s bytes>`; two for 24 h after a rotation (old and new secret). Accept the delivery when any one verifies',
    examples: ['v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='],
  }),
  'content-type': Type.Literal('application/json', { description: 'The body is the event as JSON' }),
  'user-agent': Type.String({ description: 'Identifies the sender', examples: ['petstore-webhooks/1'] }),
});
