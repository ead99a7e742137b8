// Table rows as both engines return them (snake_case columns, ids as numbers, timestamps as
// RFC 3339 UTC strings with milliseconds) and their mapping to domain objects at the boundary.
import type { Event, EventType } from '../events/event.schemas.ts';
import type { ApiKeyInfo, Scope } from '../keys/key.types.ts';
import type { Pet, PetStatus } from '../pets/pet.schemas.ts';
import type { Order, OrderStatus } from '../store/order.schemas.ts';
import type { IdempotencyRecord } from './storage.ts';

export interface PetRow {
  id: number;
  name: string;
  category_id: number;
  status: PetStatus;
}
export const PET_COLUMNS = 'id, name, category_id, status';
export const toPet = (r: PetRow): Pet => ({ id: r.id, name: r.name, categoryId: r.category_id, status: r.status });

export interface OrderRow {
  id: number;
  pet_id: number;
  status: OrderStatus;
  created_at: string;
  updated_at: string;
}
export const ORDER_COLUMNS = 'id, pet_id, status, created_at, updated_at';
export const toOrder = (r: OrderRow): Order => ({ id: r.id, petId: r.pet_id, status: r.status, createdAt: r.created_at, updatedAt: r.updated_at });

export interface EventRow {
  id: number;
  type: EventType;
  data: string; // the resource as JSON text, exactly as recorded
  created_at: string;
}
export const EVENT_COLUMNS = 'id, type, data, created_at';
export const toEvent = (r: EventRow): Event => ({ id: `evt_${r.id}`, type: r.type, createdAt: r.created_at, data: JSON.parse(r.data) as Event['data'] });

export interface KeyRow {
  id: number;
  name: string;
  prefix: string;
  scopes: string; // space-separated
  created_at: string;
  revoked_at: string | null;
}
export const KEY_COLUMNS = 'id, name, prefix, scopes, created_at, revoked_at';
export const toKeyInfo = (r: KeyRow): ApiKeyInfo => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  scopes: parseScopes(r.scopes),
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});
export const parseScopes = (text: string): Scope[] => text.split(' ') as Scope[];

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
/** Whether a stored claim no longer counts: past retention, or in flight since before `abandonedBefore`. */
export const isDeadClaim = (r: IdempotencyRow, expiredBefore: Date, abandonedBefore: Date): boolean =>
  r.created_at < expiredBefore.getTime() || (r.status === null && r.created_at < abandonedBefore.getTime());
