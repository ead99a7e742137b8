// Scopes in words for people, and the named presets the Issue-key form offers (issue 35 §1): a new
// key starts with no scope, and a preset sets a tested set in one click, each showing what it sets.
import { type EventType, SCOPES } from '@petstore/client';
import type { Scope } from './session.ts';

/** Each scope as the staff would say it; the code beside it is what the API and the CLI name. */
export const SCOPE_WORDS: Readonly<Record<Scope, string>> = {
  'pets:read': 'See animals, categories and the inventory',
  'pets:write': 'Add, change and withdraw animals',
  'health:read': 'See health records and the care due',
  'health:write': 'Record and void health records',
  'orders:read': 'See orders',
  'orders:write': 'Place and move orders',
  'customers:read': "See customers' names, addresses and contact details",
  'customers:write': 'Add, change, withdraw and erase customers',
  'categories:write': 'Add, rename and delete categories',
  'events:read': 'Read the event feed',
  'keys:admin': 'Issue and revoke keys',
  'webhooks:admin': 'Manage webhooks',
  'staff:read': 'See the staff and their roles',
  'staff:admin': 'Invite staff, change roles, reset passwords, deactivate',
  'activity:read': 'See who changed what (the activity log)',
};

export interface Preset {
  readonly name: string;
  readonly scopes: readonly Scope[];
}

/** The roles a shop hands keys to, least privilege first. */
export const PRESETS: readonly Preset[] = [
  { name: 'Read only', scopes: ['pets:read', 'orders:read'] },
  { name: 'Shop floor', scopes: ['pets:read', 'orders:read', 'orders:write'] },
  { name: 'Catalogue', scopes: ['pets:read', 'pets:write', 'categories:write'] },
  { name: 'Integration', scopes: ['pets:read', 'orders:read', 'events:read', 'webhooks:admin'] },
];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((s) => b.includes(s));

/** What to call a key with these scopes: its preset's name, "Owner" for every scope, else "Custom". */
export function presetName(scopes: readonly string[]): string {
  if (same(scopes, SCOPES)) return 'Every scope';
  return PRESETS.find((p) => same(p.scopes, scopes))?.name ?? 'Custom';
}

/**
 * The scope that reads the events of a type: the API's read rule (src/events/event.access.ts), so
 * that the Events page offers only the types the key may ask for (another is refused with 403).
 */
export function readScopeOf(type: EventType): Scope {
  if (type.startsWith('pet.health.')) return 'health:read';
  return type.startsWith('order.') ? 'orders:read' : 'pets:read';
}
