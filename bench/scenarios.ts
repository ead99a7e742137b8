// What the benchmark asks of both servers. Each scenario is one static request, so wrk stays on
// its fast path; `expect` is the one status a correct answer has.
import type { Seeded } from './seed.ts';

export interface Scenario {
  readonly name: string;
  readonly title: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  readonly authorized: boolean;
  readonly expect: number;
}

export const SCENARIO_NAMES = ['list20', 'list100', 'get', 'unauth', 'create', 'deep', 'search', 'searchwide', 'sortname', 'thumb'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export function scenarios(size: number, seeded: Seeded): Record<ScenarioName, Scenario> {
  const id = Math.ceil(size / 2);
  const deepPage = Math.floor(seeded.deepAfterId / 20) + 1;
  return {
    list20: { name: 'list20', title: 'GET /v1/pets?limit=20', method: 'GET', path: '/v1/pets?limit=20', authorized: true, expect: 200 },
    list100: {
      name: 'list100',
      title: 'GET /v1/pets?limit=100&status=available',
      method: 'GET',
      path: '/v1/pets?limit=100&status=available',
      authorized: true,
      expect: 200,
    },
    get: { name: 'get', title: `GET /v1/pets/${id}`, method: 'GET', path: `/v1/pets/${id}`, authorized: true, expect: 200 },
    unauth: { name: 'unauth', title: 'GET /v1/pets without a key (401)', method: 'GET', path: '/v1/pets', authorized: false, expect: 401 },
    create: {
      name: 'create',
      title: 'POST /v1/pets',
      method: 'POST',
      path: '/v1/pets',
      body: JSON.stringify({ name: 'Bench', categoryId: 2, status: 'available' }),
      authorized: true,
      expect: 201,
    },
    // One pet's number: a word of exactly one pet's search text.
    search: { name: 'search', title: `GET /v1/pets?q=${id}`, method: 'GET', path: `/v1/pets?q=${id}`, authorized: true, expect: 200 },
    // "rex" names a tenth of the store: a page is found at once in id order.
    searchwide: {
      name: 'searchwide',
      title: 'GET /v1/pets?q=rex&limit=20 (a tenth of the store)',
      method: 'GET',
      path: '/v1/pets?q=rex&limit=20',
      authorized: true,
      expect: 200,
    },
    sortname: {
      name: 'sortname',
      title: 'GET /v1/pets?sort=-name&status=available&limit=20',
      method: 'GET',
      path: '/v1/pets?sort=-name&status=available&limit=20',
      authorized: true,
      expect: 200,
    },
    deep: {
      name: 'deep',
      title: `GET /v1/pets?limit=20 page ${deepPage.toLocaleString('en')} (cursor)`,
      method: 'GET',
      path: `/v1/pets?limit=20&cursor=${seeded.deepCursor}`,
      authorized: true,
      expect: 200,
    },
    // Public, as a browser asks for it (no key); the baseline serves the same bytes as a static file.
    thumb: {
      name: 'thumb',
      title: 'GET /v1/photos/{hash}/thumb (public)',
      method: 'GET',
      path: `/v1/photos/${seeded.photo.hash}/thumb`,
      authorized: false,
      expect: 200,
    },
  };
}
