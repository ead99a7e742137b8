// Table rows as both engines return them (snake_case columns, ids as numbers, timestamps as
// RFC 3339 UTC strings with milliseconds) and their mapping to domain objects at the boundary.
import { eventId, type Event, type EventType } from '../events/event.schemas.ts';
import type { Category } from '../categories/category.schemas.ts';
import type { Country } from '../customers/countries.ts';
import type { Address, Customer, CustomerRecord } from '../customers/customer.schemas.ts';
import type { CustomerWrite } from '../customers/customer.store.ts';
import type { HealthKind, HealthRecord } from '../health/health.schemas.ts';
import type { Hold, HoldState } from '../holds/hold.schemas.ts';
import type { ApiKey } from '../keys/key.schemas.ts';
import type { Scope, StoredPrincipal } from '../keys/key.types.ts';
import { PET_FIELDS, type Pet, type PetField, type PetFieldKind, type Price } from '../pets/pet.schemas.ts';
import { photoPath, type Photo, type PhotoMediaType } from '../photos/photo.schemas.ts';
import type { Role } from '../staff/staff.roles.ts';
import type { Staff, StaffState } from '../staff/staff.schemas.ts';
import type { StoredPasskey, StoredSession, StoredStaff } from '../staff/staff.store.ts';
import type { Order, OrderStatus, SaleMethod } from '../store/order.schemas.ts';
import type { Delivery, DeliveryStatus, DeliveryType, Webhook } from '../webhooks/webhook.schemas.ts';
import type { IdempotencyRecord } from '../events/idempotency.store.ts';
import type { LeasedAttempt, WebhookState } from '../webhooks/webhook.store.ts';

/** A pet's columns, as PET_FIELDS lists them (pets/pet.schemas.ts). */
export const PET_COLUMN_NAMES: readonly string[] = PET_FIELDS.flatMap((f) => f.columns);
export const PET_COLUMNS = PET_COLUMN_NAMES.join(', ');
/** A pet's row as an object (the statements of a transaction) or as its values in PET_COLUMNS' order (SQLite's hot reads). */
export type PetRow = Readonly<Record<string, unknown>>;
export type PetTuple = readonly unknown[];
type Column = string | number | null;

// How each kind of field is kept in its columns, both ways. Optional fields are absent rather than
// null, as the API shows them. One switch per direction rather than a codec object per kind: every
// row of a page is mapped at each miss of the read caches, and a call site that calls one function
// maps a row faster than one calling a different function per kind (docs/performance.md).
/** A member from its column's value (and the next column's, for a kind that takes two). */
function decode(kind: PetFieldKind, value: unknown, next: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  switch (kind) {
    case 'list': // a JSON array of strings, in the order given
      return JSON.parse(value as string);
    case 'price':
      return next === null ? undefined : { amount: value, currency: next };
    case 'photos': // the display images' hashes, space-separated, oldest first (migration 10)
      return (value as string).split(' ').map(photoPath);
    case 'boolean': // SQLite: 0 or 1; PostgreSQL: boolean
      return value === true || value === 1;
    case 'json': // an object, as JSON text (migration 15)
      return JSON.parse(value as string);
    default:
      return value;
  }
}

function encode(kind: PetFieldKind, value: unknown): Column[] {
  switch (kind) {
    case 'list':
      return [JSON.stringify(value ?? [])];
    case 'price':
      return priceColumns(value as Price | undefined);
    case 'photos':
      return [value === undefined ? null : (value as string[]).map((url) => url.slice(url.lastIndexOf('/') + 1)).join(' ')];
    case 'boolean':
      return [value === undefined ? null : value ? 1 : 0];
    case 'json':
      return [value === undefined ? null : JSON.stringify(value)];
    default:
      return [(value as Column | undefined) ?? null];
  }
}

/** Each field's place in a row of PET_COLUMNS: by position (a row read as values) and by name. */
const READ = (() => {
  let at = 0;
  return PET_FIELDS.map(({ member, kind, columns }) => {
    const read = { member, kind, at, column: columns[0], next: columns[1] ?? '' };
    at += columns.length;
    return read;
  });
})();

/** The pet of a row read as values, its members in the schema's order. */
export function tupleToPet(row: PetTuple): Pet {
  const pet: Record<string, unknown> = {};
  for (const { member, kind, at } of READ) {
    const value = decode(kind, row[at], row[at + 1]);
    if (value !== undefined) pet[member] = value;
  }
  return pet as Pet;
}

/** The pet of a row read as an object, its members in the schema's order. */
export function toPet(row: PetRow): Pet {
  const pet: Record<string, unknown> = {};
  for (const { member, kind, column, next } of READ) {
    const value = decode(kind, row[column], row[next]);
    if (value !== undefined) pet[member] = value;
  }
  return pet as Pet;
}

/** The columns' values of `fields` of a pet, in the order of their columns. */
export function petValues(fields: readonly PetField[], pet: Partial<Pet>): Column[] {
  return fields.flatMap((f) => encode(f.kind, pet[f.member]));
}

/** A pet as the read caches hand it out, to every request until the database changes: frozen through. */
export function frozenPet(p: Pet): Pet {
  for (const value of Object.values(p)) if (typeof value === 'object' && value !== null) Object.freeze(value);
  return Object.freeze(p);
}

/** A price as its two columns (amount, currency); both NULL without one. */
export const priceColumns = (price: Price | undefined): [number | null, string | null] => (price === undefined ? [null, null] : [price.amount, price.currency]);

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

export interface HealthRow {
  id: number;
  pet_id: number;
  kind: HealthKind;
  given_on: string; // YYYY-MM-DD (PostgreSQL: DATE, read as its text)
  name: string;
  batch: string | null;
  given_by: string;
  notes: string | null;
  next_due: string | null;
  recorded_at: string;
  voided_at: string | null;
  void_reason: string | null;
}
const HEALTH_FIELDS = ['id', 'pet_id', 'kind', 'given_on', 'name', 'batch', 'given_by', 'notes', 'next_due', 'recorded_at', 'voided_at', 'void_reason'];
export const HEALTH_COLUMNS = HEALTH_FIELDS.join(', ');
/** HEALTH_COLUMNS of the table aliased `h`, for statements that join it. */
export const H_HEALTH_COLUMNS = HEALTH_FIELDS.map((c) => `h.${c}`).join(', ');
// Optional fields are absent rather than null, as the API shows them; the key order is the schema's.
export const toHealthRecord = (r: HealthRow): HealthRecord => ({
  id: r.id,
  petId: r.pet_id,
  kind: r.kind,
  date: r.given_on,
  name: r.name,
  ...(r.batch === null ? {} : { batch: r.batch }),
  givenBy: r.given_by,
  ...(r.notes === null ? {} : { notes: r.notes }),
  ...(r.next_due === null ? {} : { nextDue: r.next_due }),
  recordedAt: r.recorded_at,
  ...(r.voided_at === null || r.void_reason === null ? {} : { voided: { at: r.voided_at, reason: r.void_reason } }),
});

export interface OrderRow {
  id: number;
  pet_id: number;
  customer_id: number | null;
  status: OrderStatus;
  method: SaleMethod | null;
  created_at: string;
  updated_at: string;
  price_amount: number | null;
  price_currency: string | null;
  deposit_amount: number | null;
  deposit_currency: string | null;
}
export const ORDER_COLUMNS = 'id, pet_id, customer_id, status, method, created_at, updated_at, price_amount, price_currency, deposit_amount, deposit_currency';
export const toOrder = (r: OrderRow): Order => {
  const order: Order = {
    id: r.id,
    petId: r.pet_id,
    ...(r.customer_id === null ? {} : { customerId: r.customer_id }),
    status: r.status,
    ...(r.method === null ? {} : { method: r.method }),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  if (r.price_amount !== null && r.price_currency !== null) order.price = { amount: r.price_amount, currency: r.price_currency };
  if (r.deposit_amount !== null && r.deposit_currency !== null) order.deposit = { amount: r.deposit_amount, currency: r.deposit_currency };
  return order;
};

export interface EventRow {
  id: number;
  type: EventType;
  data: string; // the resource as JSON text, exactly as recorded
  created_at: string;
  actor: string | null; // JSON text; null before migration 20
  changes: string | null; // JSON text, on updates
}
export const EVENT_COLUMNS = 'id, type, data, created_at, actor, changes';
// The row's type names which event schema `data` follows (written by the outbox from that resource).
export const toEvent = (r: EventRow): Event =>
  ({
    id: eventId(r.id),
    type: r.type,
    createdAt: r.created_at,
    data: JSON.parse(r.data),
    ...(r.actor === null ? {} : { actor: JSON.parse(r.actor) }),
    ...(r.changes === null ? {} : { changes: JSON.parse(r.changes) }),
  }) as Event;

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
  name: string;
  scopes: string;
  owner: boolean | number; // SQLite: 0 or 1
  revoked_at: string | null;
  expires_at: string | null;
}
export const PRINCIPAL_COLUMNS = 'id, name, scopes, owner, revoked_at, expires_at';
const epochMs = (t: string | null): number | null => (t === null ? null : Date.parse(t));
export const toStoredPrincipal = (r: PrincipalRow): StoredPrincipal =>
  Object.freeze({
    keyId: r.id,
    name: r.name,
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
  actor: string | null;
  changes: string | null;
}
export const CLAIM_COLUMNS =
  'd.id, d.webhook_id, d.attempt, d.event_id, w.url, w.owner_key_id, w.secret, w.previous_secret, w.previous_secret_until, e.type, e.data, e.created_at, e.actor, e.changes';
export const toLeased = (r: ClaimRow): LeasedAttempt => ({
  deliveryId: r.id,
  webhookId: r.webhook_id,
  url: r.url,
  keyId: r.owner_key_id,
  attempt: r.attempt,
  eventId: r.event_id,
  event: r.type === null ? undefined : toEvent({ id: r.event_id, type: r.type, data: r.data!, created_at: r.created_at!, actor: r.actor, changes: r.changes }),
  secret: r.secret,
  previousSecret: r.previous_secret === null || r.previous_secret_until === null ? null : { secret: r.previous_secret, until: r.previous_secret_until },
});

export interface StaffRow {
  id: number;
  name: string;
  email: string;
  role: Role;
  state: StaffState;
  created_at: string;
  last_sign_in_at: string | null;
  password_hash?: string | null;
  invitation_expires_at?: string | null;
}
export const STAFF_COLUMNS = 'id, name, email, role, state, created_at, last_sign_in_at';
export const STORED_STAFF_COLUMNS = `${STAFF_COLUMNS}, password_hash, invitation_expires_at`;
export const toStaff = (r: StaffRow): Staff => ({
  id: Number(r.id),
  name: r.name,
  email: r.email,
  role: r.role,
  state: r.state,
  createdAt: r.created_at,
  lastSignInAt: r.last_sign_in_at,
});
export const toStoredStaff = (r: StaffRow): StoredStaff => ({
  ...toStaff(r),
  passwordHash: r.password_hash ?? null,
  invitationExpiresAt: r.invitation_expires_at ?? null,
});

export interface SessionRow {
  id: number;
  staff_id: number;
  name: string;
  role: Role;
  state: StaffState;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ended_at: string | null;
}
/** A session's columns (alias s) with its person's role and state (alias p). */
export const SESSION_COLUMNS = 's.id, s.staff_id, p.name, p.role, p.state, s.created_at, s.last_seen_at, s.expires_at, s.ended_at';
export const toStoredSession = (r: SessionRow): StoredSession => ({
  id: Number(r.id),
  staffId: Number(r.staff_id),
  name: r.name,
  role: r.role,
  state: r.state,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
  endedAt: r.ended_at,
});

export interface PasskeyRow {
  id: number;
  staff_id: number;
  credential_id: string;
  public_key: string;
  counter: number | string;
  transports: string;
  created_at: string;
  last_used_at: string | null;
}
export const PASSKEY_COLUMNS = 'id, staff_id, credential_id, public_key, counter, transports, created_at, last_used_at';
export const toStoredPasskey = (r: PasskeyRow): StoredPasskey => ({
  id: Number(r.id),
  staffId: Number(r.staff_id),
  credentialId: r.credential_id,
  publicKey: r.public_key,
  counter: Number(r.counter),
  transports: r.transports === '' ? [] : r.transports.split(' '),
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

export interface CustomerRow {
  id: number;
  name: string | null;
  email: string | null;
  phone: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  postal_code: string | null;
  region: string | null;
  country: Country | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  erased_at: string | null;
  retained_until: string | null;
}
export const CUSTOMER_COLUMNS =
  'id, name, email, phone, address_line1, address_line2, city, postal_code, region, country, notes, created_at, updated_at, deleted_at, erased_at, retained_until';

function addressOf(r: CustomerRow): Address | undefined {
  if (r.address_line1 === null || r.city === null || r.postal_code === null || r.country === null) return undefined;
  return {
    line1: r.address_line1,
    ...(r.address_line2 === null ? {} : { line2: r.address_line2 }),
    city: r.city,
    postalCode: r.postal_code,
    ...(r.region === null ? {} : { region: r.region }),
    country: r.country,
  };
}

/** What the store holds on a customer, in the CustomerRecord schema's order; absent members are absent, not null. */
export const toCustomerRecord = (r: CustomerRow): CustomerRecord => {
  const address = addressOf(r);
  return {
    id: r.id,
    ...(r.name === null ? {} : { name: r.name }),
    ...(r.email === null ? {} : { email: r.email }),
    ...(r.phone === null ? {} : { phone: r.phone }),
    ...(address === undefined ? {} : { address }),
    ...(r.notes === null ? {} : { notes: r.notes }),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...(r.deleted_at === null ? {} : { withdrawnAt: r.deleted_at }),
    ...(r.erased_at === null ? {} : { erasedAt: r.erased_at }),
    ...(r.retained_until === null ? {} : { retainedUntil: r.retained_until }),
  };
};

/** A live customer's row (its name and address are always there: the table's CHECK) as the Customer schema orders it. */
export const toCustomer = (r: CustomerRow): Customer => ({
  id: r.id,
  name: r.name!,
  ...(r.email === null ? {} : { email: r.email }),
  ...(r.phone === null ? {} : { phone: r.phone }),
  address: addressOf(r)!,
  ...(r.notes === null ? {} : { notes: r.notes }),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** A customer's columns name … notes, in CUSTOMER_COLUMNS' order, from what a workflow writes. */
export function customerColumns(c: CustomerWrite['customer']): (string | null)[] {
  const a = c.address;
  return [c.name, c.email ?? null, c.phone ?? null, a.line1, a.line2 ?? null, a.city, a.postalCode, a.region ?? null, a.country, c.notes ?? null];
}

export interface HoldRow {
  id: number;
  pet_id: number;
  customer_id: number;
  state: HoldState;
  method: SaleMethod;
  until: string;
  deposit_amount: number | null;
  deposit_currency: string | null;
  deposit_refunded: boolean | number | null;
  order_id: number | null;
  created_at: string;
  updated_at: string;
}
export const HOLD_COLUMNS =
  'id, pet_id, customer_id, state, method, until, deposit_amount, deposit_currency, deposit_refunded, order_id, created_at, updated_at';
export const toHold = (r: HoldRow): Hold => ({
  id: r.id,
  petId: r.pet_id,
  customerId: r.customer_id,
  state: r.state,
  method: r.method,
  until: r.until,
  ...(r.deposit_amount === null || r.deposit_currency === null ? {} : { deposit: { amount: Number(r.deposit_amount), currency: r.deposit_currency } }),
  ...(r.deposit_refunded === null ? {} : { depositRefunded: Boolean(r.deposit_refunded) }),
  ...(r.order_id === null ? {} : { orderId: r.order_id }),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
