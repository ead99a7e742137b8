// The care an animal is due next, from its health log (the animal's page, pages/pet.tsx).
import type { HealthRecord } from '@petstore/client';

/**
 * The next care due: of the latest record of each kind that is not voided (what GET /v1/health/due
 * goes by), the earliest `nextDue` — read from the newest 100 records of the log.
 */
export function nextCare(records: readonly HealthRecord[]): HealthRecord | undefined {
  const latest = new Map<HealthRecord['kind'], HealthRecord>();
  for (const r of records) if (!r.voided && !latest.has(r.kind)) latest.set(r.kind, r);
  return [...latest.values()].filter((r) => r.nextDue !== undefined).sort((a, b) => (a.nextDue! < b.nextDue! ? -1 : 1))[0];
}
