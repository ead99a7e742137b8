import type { Changes } from './activity.schemas.ts';

// Bookkeeping members that change with every write and tell a reader nothing the entry's time does not.
const BOOKKEEPING = new Set(['updatedAt', 'createdAt', 'etag', 'version']);

/**
 * What an update changed: each top-level member whose JSON differs, as `[before, after]` (`null`
 * for a member absent on one side). Pure.
 */
export function changesOf(before: object, after: object): Changes {
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const changes: Changes = {};
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (BOOKKEEPING.has(key)) continue;
    const was = b[key] ?? null;
    const is = a[key] ?? null;
    if (JSON.stringify(was) !== JSON.stringify(is)) changes[key] = [was, is];
  }
  return changes;
}
