/** The Content-Type of every JSON answer (bodies the service sends as ready-made text included). */
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * JSON text of a value with every object's keys sorted, so that two equal values give the same
 * text whatever order their keys were written in (request fingerprints, entity tags).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value) ?? null);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, sortKeys(o[k])]),
  );
}
