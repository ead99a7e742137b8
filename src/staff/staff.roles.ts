// The staff roles and what each may do: the one table (docs/api.md, "Roles"). A signed-in person
// runs with the scopes of their role, through the same scope checks as an API key
// (http/policies/auth.ts). Pure: no storage, no clock.
import { SCOPES, type Scope } from '../keys/key.types.ts';

export const ROLES = ['owner', 'manager', 'clerk', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const READS: readonly Scope[] = ['pets:read', 'health:read', 'orders:read', 'events:read'];

/**
 * Each role's scopes. An owner holds every scope and manages every key and every person. A manager
 * holds every scope but `keys:admin` (so sees no key but those it is handed) and manages clerks and
 * viewers only (`managesRole`). A clerk reads and writes animals, health records, orders (holds
 * and sales included) and customers. A viewer reads animals, health records, orders and the event
 * feed — not the customers' personal data.
 */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  owner: SCOPES,
  manager: SCOPES.filter((s) => s !== 'keys:admin'),
  clerk: ['pets:read', 'pets:write', 'health:read', 'health:write', 'orders:read', 'orders:write', 'customers:read', 'customers:write'],
  viewer: READS,
};

/**
 * Whether an actor may invite a person to `role`, change a person of `role` (or to it), reset
 * their password or deactivate them: an owner (an owner session, an owner key, a bootstrap key, the
 * CLI) manages every role; anyone else holding `staff:admin` (a manager) only clerks and viewers.
 */
export function managesRole(actorIsOwner: boolean, role: Role): boolean {
  return actorIsOwner || role === 'clerk' || role === 'viewer';
}
