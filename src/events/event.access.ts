// Who may read an event (docs/api.md, "Who reads an event"): the one rule every way an event leaves
// the service asks — the feed (GET /events, the console), a webhook delivery when it is sent, a
// retry. An event carries the resource it describes, so reading it takes the scope that reads that
// resource through the REST API. Pure: no storage, no clock.
import { AppError } from '../errors.ts';
import type { Scope } from '../keys/key.types.ts';
import { EVENT_TYPES, type EventType } from './event.schemas.ts';

/**
 * The scope that reads what an event of `type` carries: `health:read` for `pet.health.*` (a health
 * record, `GET /pets/{petId}/health`), `pets:read` for the other `pet.*` and `category.*` (`GET /pets`,
 * `GET /categories` take it), `orders:read` for `order.*` (`GET /store/orders`), `customers:read`
 * for `customer.*` (`GET /customers`), `orders:read` for `hold.*` (`GET /holds`: a hold is a reservation
 * on the way to an order).
 */
export function readScopeOf(type: EventType): Scope {
  if (type.startsWith('pet.health.')) return 'health:read';
  if (type.startsWith('customer.')) return 'customers:read';
  return type.startsWith('order.') || type.startsWith('hold.') ? 'orders:read' : 'pets:read';
}

/** Whether a key holding `scopes` may read events of `type`. */
export function mayRead(scopes: readonly Scope[], type: EventType): boolean {
  return scopes.includes(readScopeOf(type));
}

/**
 * Whether a reader holding `scopes` sees the `changes` of an activity entry or event of `type`: those
 * of an event type take the scope that reads that type (so a customer's, which are personal data,
 * take `customers:read`); a write no event describes (`key.created`, `staff.updated`) carries no
 * data of another domain, so its changes go with the entry.
 */
export function mayReadChanges(scopes: readonly Scope[], type: string): boolean {
  return !(EVENT_TYPES as readonly string[]).includes(type) || mayRead(scopes, type as EventType);
}

/** The event types a key holding `scopes` may read, in EVENT_TYPES order. */
export function readableTypes(scopes: readonly Scope[]): EventType[] {
  return EVENT_TYPES.filter((type) => mayRead(scopes, type));
}

/** 403 insufficient_scope for a key that asks for events of `type` (the feed's `type` filter) and cannot read them. */
export function assertMayRead(scopes: readonly Scope[], type: EventType): void {
  if (mayRead(scopes, type)) return;
  const scope = readScopeOf(type);
  throw new AppError('insufficient_scope', `this API key lacks ${scope}: ${type} events carry what ${scope} reads`, {
    'www-authenticate': `Bearer realm="petstore", error="insufficient_scope", scope="${scope}"`,
  });
}
