// Table rows as both engines return them (snake_case columns, ids as numbers, timestamps as
// RFC 3339 UTC strings with milliseconds) and their mapping to domain objects at the boundary.
import { eventId, type Event, type EventType } from '../events/event.schemas.ts';
import type { Category } from '../categories/category.schemas.ts';
import type { ApiKey } from '../keys/key.schemas.ts';
import type { Scope, StoredPrincipal } from '../keys/key.types.ts';
import type { Pet, PetStatus } from '../pets/pet.schemas.ts';
import { photoPath, type Photo, type PhotoMediaType } from '../photos/photo.schemas.ts';
import type { Order, OrderStatus } from '../store/order.schemas.ts';
import type { Delivery, DeliveryStatus, DeliveryType, Webhook } from '../webhooks/webhook.schemas.ts';
import type { IdempotencyRecord, LeasedAttempt, WebhookState } from './storage.ts';

export interface PetRow {
  id: number;
  name: string;
  category_id: number;
  status: PetStatus;
  description: string | null;
  tags: string; // a JSON array of strings, in the order given
  price_amount: number | null;
  price_currency: string | null;
  created_at: string;
  updated_at: string;
  photos: string | null; // hashes, space-separated, oldest first (migration 10)
}
export const PET_COLUMNS = 'id, name, category_id, status, description, tags, price_amount, price_currency, created_at, updated_at, photos';
/** PET_COLUMNS as the values of a row, in that order (SQLite reads hot rows as arrays). */
export type PetTuple = [number, string, number, PetStatus, string | null, string, number | null, string | null, string, string, string | null];
export const toPet = (r: PetRow): Pet =>
  pet(r.id, r.name, r.category_id, r.status, r.description, r.tags, r.price_amount, r.price_currency, r.created_at, r.updated_at, r.photos);
export const tupleToPet = (r: PetTuple): Pet => pet(...r);
/** A pet as the read caches hand it out, to every request until the database changes: frozen through. */
export function frozenPet(p: Pet): Pet {
  Object.freeze(p.tags);
  if (p.price) Object.freeze(p.price);
  if (p.photoUrls) Object.freeze(p.photoUrls);
  return Object.freeze(p);
}
// Optional fields are absent rather than null, as the API shows them; the key order is the schema's.
// A pet with photos has photoUrls; one without has none (the field is left out, as before photos existed).
function pet(...[id, name, categoryId, status, description, tags, amount, currency, createdAt, updatedAt, photos]: PetTuple): Pet {
  return {
    id,
    name,
    categoryId,
    status,
    ...(description === null ? {} : { description }),
    tags: JSON.parse(tags) as string[],
    ...(amount === null || currency === null ? {} : { price: { amount, currency } }),
    ...(photos === null ? {} : { photoUrls: photos.split(' ').map(photoPath) }),
    createdAt,
    updatedAt,
  };
}

export interface PhotoRow {
  id: number;
  pet_id: number;
  hash: string;
  media_type: PhotoMediaType;
  width: number;
  height: number;
  size: number;
  created_at: string;
}
export const PHOTO_COLUMNS = 'ph.id, ph.pet_id, ph.hash, b.media_type, b.width, b.height, b.size, ph.created_at';
export const toPhoto = (r: PhotoRow): Photo => ({
  id: r.id,
  petId: r.pet_id,
  hash: r.hash,
  url: photoPath(r.hash),
  thumbnailUrl: `${photoPath(r.hash)}/thumb`,
  mediaType: r.media_type,
  width: r.width,
  height: r.height,
  bytes: r.size,
  createdAt: r.created_at,
});

export interface OrderRow {
  id: number;
  pet_id: number;
  status: OrderStatus;
  created_at: string;
  updated_at: string;
  price_amount: number | null;
  price_currency: string | null;
}
export const ORDER_COLUMNS = 'id, pet_id, status, created_at, updated_at, price_amount, price_currency';
export const toOrder = (r: OrderRow): Order => {
  const order: Order = { id: r.id, petId: r.pet_id, status: r.status, createdAt: r.created_at, updatedAt: r.updated_at };
  if (r.price_amount !== null && r.price_currency !== null) order.price = { amount: r.price_amount, currency: r.price_currency };
  return order;
};

export interface EventRow {
  id: number;
  type: EventType;
  data: string; // the resource as JSON text, exactly as recorded
  created_at: string;
}
export const EVENT_COLUMNS = 'id, type, data, created_at';
// The row's type names which event schema `data` follows (written by the outbox from that resource).
export const toEvent = (r: EventRow): Event => ({ id: eventId(r.id), type: r.type, createdAt: r.created_at, data: JSON.parse(r.data) }) as Event;

export interface CategoryRow {
  id: number;
  name: string;
}
export const CATEGORY_COLUMNS = 'id, name';
export const toCategory = (r: CategoryRow): Category => ({ id: r.id, name: r.name });

export interface KeyRow {
  id: number;
  name: string;
  prefix: string;
  scopes: string; // space-separated
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  parent_id: number | null;
  owner: boolean | number; // SQLite: 0 or 1
}
export const KEY_COLUMNS = 'id, name, prefix, scopes, created_at, expires_at, revoked_at, parent_id, owner';
export const toApiKey = (r: KeyRow): ApiKey => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  scopes: parseScopes(r.scopes),
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  parentId: r.parent_id,
  owner: Boolean(r.owner),
});
export const parseScopes = (text: string): Scope[] => text.split(' ') as Scope[];

/** What authentication needs of a key: who it is, what it may do, until when. */
export interface PrincipalRow {
  id: number;
  scopes: string;
  owner: boolean | number; // SQLite: 0 or 1
  revoked_at: string | null;
  expires_at: string | null;
}
export const PRINCIPAL_COLUMNS = 'id, scopes, owner, revoked_at, expires_at';
const epochMs = (t: string | null): number | null => (t === null ? null : Date.parse(t));
export const toStoredPrincipal = (r: PrincipalRow): StoredPrincipal =>
  Object.freeze({
    keyId: r.id,
    scopes: Object.freeze(parseScopes(r.scopes)),
    owner: Boolean(r.owner),
    revokedAt: epochMs(r.revoked_at),
    expiresAt: epochMs(r.expires_at),
  });

export interface IdempotencyRow {
  fingerprint: string;
  status: number | null; // NULL while the first request is in flight
  body: string | null;
  location: string | null;
  created_at: number; // ms since the epoch
}
export const IDEMPOTENCY_COLUMNS = 'fingerprint, status, body, location, created_at';
export const toIdempotencyRecord = (r: IdempotencyRow): IdempotencyRecord => ({
  fingerprint: r.fingerprint,
  response: r.status === null ? undefined : { status: r.status, body: r.body ?? '', location: r.location },
});
export interface WebhookRow {
  id: number;
  url: string;
  events: string | null; // the subscribed types, space-separated in the order given; NULL = every type (sql.webhooks.ts)
  description: string | null;
  enabled: number | boolean; // SQLite 0/1, PostgreSQL boolean
  created_at: string;
  failing_since: string | null;
  owner_key_id: number | null;
  host?: string | null; // read by lock only (WebhookState)
}
export const toWebhook = (r: WebhookRow): Webhook => ({
  id: r.id,
  url: r.url,
  events: r.events === null ? null : (r.events.split(' ') as EventType[]),
  description: r.description,
  enabled: Boolean(r.enabled),
  keyId: r.owner_key_id,
  createdAt: r.created_at,
});
export const toWebhookState = (r: WebhookRow): WebhookState => ({ webhook: toWebhook(r), failingSince: r.failing_since, host: r.host ?? null });
/** webhooks.events as the release before migration 7 reads it (space-separated, NULL = every type); still written for it. */
export const eventList = (events: readonly EventType[] | null): string | null => (events === null ? null : events.join(' '));

export interface DeliveryRow {
  id: number;
  type: DeliveryType;
  event_id: number | null;
  attempt: number | null;
  status: DeliveryStatus;
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
  next_attempt_at: string | null;
  attempted_at: string | null;
  created_at: string;
}
export const DELIVERY_COLUMNS = 'id, type, event_id, attempt, status, http_status, duration_ms, error, next_attempt_at, attempted_at, created_at';
export const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  type: r.type,
  eventId: r.event_id === null ? null : eventId(r.event_id),
  attempt: r.attempt,
  status: r.status,
  httpStatus: r.http_status,
  durationMs: r.duration_ms,
  error: r.error,
  nextAttemptAt: r.next_attempt_at,
  attemptedAt: r.attempted_at,
  createdAt: r.created_at,
});

/** A claimed attempt joined with its endpoint and its event (NULLs when the event was purged). */
export interface ClaimRow {
  id: number;
  webhook_id: number;
  attempt: number;
  event_id: number;
  url: string;
  owner_key_id: number | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  type: EventType | null;
  data: string | null;
  created_at: string | null;
}
export const CLAIM_COLUMNS =
  'd.id, d.webhook_id, d.attempt, d.event_id, w.url, w.owner_key_id, w.secret, w.previous_secret, w.previous_secret_until, e.type, e.data, e.created_at';
export const toLeased = (r: ClaimRow): LeasedAttempt => ({
  deliveryId: r.id,
  webhookId: r.webhook_id,
  url: r.url,
  keyId: r.owner_key_id,
  attempt: r.attempt,
  eventId: r.event_id,
  event: r.type === null ? undefined : toEvent({ id: r.event_id, type: r.type, data: r.data!, created_at: r.created_at! }),
  secret: r.secret,
  previousSecret: r.previous_secret === null || r.previous_secret_until === null ? null : { secret: r.previous_secret, until: r.previous_secret_until },
});
