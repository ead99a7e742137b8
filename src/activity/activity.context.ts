// The actor of the request being answered, for every write it makes. Authentication resolves the
// request's principal once (http/policies/auth.ts) and runs the handler inside `actingAs`; the
// outbox (events/event.outbox.ts) reads it when a write starts, so no route or service passes it by
// hand and none can forget it. A write outside any request (a hold's expiry) is the service's.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Caller } from '../keys/key.types.ts';
import { SERVICE_ACTOR, type Actor } from './activity.schemas.ts';

const current = new AsyncLocalStorage<Actor>();

/** The actor a caller (a key, or a person's session) writes as. */
export function actorOf(caller: Caller): Actor {
  if (caller.staff !== undefined) return { type: 'staff', id: caller.staff.id, name: caller.name ?? `staff ${caller.staff.id}` };
  return { type: 'key', id: caller.keyId, name: caller.name ?? 'configured key' };
}

/** Runs `fn` (and all it awaits) as `actor`. */
export function actingAs<T>(actor: Actor, fn: () => T): T {
  return current.run(actor, fn);
}

/** The actor of the write being made: the request's, or the service's outside any request. */
export function currentActor(): Actor {
  return current.getStore() ?? SERVICE_ACTOR;
}
