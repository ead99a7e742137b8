// The seeded store, as a pure function of the pet id: the seed scripts write exactly these rows
// and the baseline server computes the same objects, so both answer with the same bytes.
export const STATUSES = ['available', 'pending', 'sold'] as const;
export type FixtureStatus = (typeof STATUSES)[number];
export const CATEGORY_COUNT = 6; // the categories migration 1 creates

const NAMES = ['Rex', 'Mittens', 'Tweety', 'Nemo', 'Spike', 'Hammy', 'Luna', 'Bella', 'Max', 'Coco'];

export interface FixturePet {
  id: number;
  name: string;
  categoryId: number;
  status: FixtureStatus;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

/** When every seeded pet was created (and last changed). */
export const SEEDED_AT = '2026-01-01T00:00:00.000Z';

// SQL forms of the same formulas, so a database can seed a million rows without Node in the loop.
// `i` is the 1-based id; ids are assigned in insertion order on a fresh table.
export const SQL_NAME = `CASE (i - 1) % ${NAMES.length} ${NAMES.map((n, k) => `WHEN ${k} THEN '${n} '`).join(' ')} END || i`;
export const SQL_CATEGORY = `(i % ${CATEGORY_COUNT}) + 1`;
export const SQL_STATUS = `CASE i % 3 WHEN 0 THEN 'available' WHEN 1 THEN 'pending' ELSE 'sold' END`;
// What pets/pet.search.ts makes of such a name ("Rex 12" → "rex 12"): ASCII words, one space apart,
// so lower() is the same fold, for the search text and for the name's sort key.
export const SQL_SEARCH_TEXT = `lower(${SQL_NAME})`;

export function fixturePet(id: number): FixturePet {
  return {
    id,
    name: `${NAMES[(id - 1) % NAMES.length]} ${id}`,
    categoryId: (id % CATEGORY_COUNT) + 1,
    status: STATUSES[id % 3],
    tags: [],
    createdAt: SEEDED_AT,
    updatedAt: SEEDED_AT,
  };
}

export const SIZES = { '1k': 1_000, '200k': 200_000, '1m': 1_000_000 } as const;
export type SizeName = keyof typeof SIZES;

// A Link value as long as the service's (HMAC cursor), so reference servers send similar bytes.
const FAKE_CURSOR = 'cGV0czthdmFpbGFibGUKMTAw.AAAAAAAAAAAAAAAAAAAAAA';

/**
 * The first page of a listing of the seeded store, as the service would send it (body and, when
 * more follow, the next link), for the reference servers: bench/baseline.ts and
 * bench/fastify-floor.ts. undefined for a limit or status the service refuses.
 */
export function fixturePage(size: number, limit: number, status: string | undefined): { body: string; link?: string } | undefined {
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return undefined;
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) return undefined;
  const items: FixturePet[] = [];
  for (let id = 1; id <= size && items.length <= limit; id++) {
    const pet = fixturePet(id);
    if (status === undefined || pet.status === status) items.push(pet);
  }
  const more = items.length > limit;
  return {
    body: JSON.stringify(items.slice(0, limit)),
    link: more ? `</v1/pets?limit=${limit}${status ? `&status=${status}` : ''}&cursor=${FAKE_CURSOR}>; rel="next"` : undefined,
  };
}
