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
}

// SQL forms of the same formulas, so a database can seed a million rows without Node in the loop.
// `i` is the 1-based id; ids are assigned in insertion order on a fresh table.
export const SQL_NAME = `CASE (i - 1) % ${NAMES.length} ${NAMES.map((n, k) => `WHEN ${k} THEN '${n} '`).join(' ')} END || i`;
export const SQL_CATEGORY = `(i % ${CATEGORY_COUNT}) + 1`;
export const SQL_STATUS = `CASE i % 3 WHEN 0 THEN 'available' WHEN 1 THEN 'pending' ELSE 'sold' END`;

export function fixturePet(id: number): FixturePet {
  return { id, name: `${NAMES[(id - 1) % NAMES.length]} ${id}`, categoryId: (id % CATEGORY_COUNT) + 1, status: STATUSES[id % 3] };
}

export const SIZES = { '1k': 1_000, '1m': 1_000_000 } as const;
export type SizeName = keyof typeof SIZES;
