// The console's addresses (console/src/route.ts) and the next care of an animal's page
// (console/src/care.ts): pure functions, tested without a browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HealthRecord } from '@petstore/client';
import { nextCare } from '../../console/src/care.ts';
import { consoleRootOf, routeOf } from '../../console/src/route.ts';

test("the console's root from any of its pages, a proxy's prefix kept", () => {
  assert.equal(consoleRootOf('http://x/console/'), 'http://x/console/');
  assert.equal(consoleRootOf('http://x/console/#/orders'), 'http://x/console/');
  assert.equal(consoleRootOf('http://x/console/pets/12'), 'http://x/console/');
  assert.equal(consoleRootOf('http://x/console/pets/12#/health'), 'http://x/console/');
  assert.equal(consoleRootOf('https://shop.example/petstore/console/pets/7'), 'https://shop.example/petstore/console/');
});

test("an animal's page is a path; the other pages are the hash's first segment", () => {
  assert.deepEqual(routeOf('/console/pets/12', ''), { kind: 'pet', petId: 12 });
  assert.deepEqual(routeOf('/console/pets/12', '#/orders'), { kind: 'pet', petId: 12 });
  assert.deepEqual(routeOf('/console/', ''), { kind: 'page', page: 'pets', rest: [] });
  assert.deepEqual(routeOf('/console/', '#/health/4'), { kind: 'page', page: 'health', rest: ['4'] });
  assert.deepEqual(routeOf('/console/pets/x', '#/orders'), { kind: 'page', page: 'orders', rest: [] });
});

test('the next care: the earliest nextDue of the latest record of each kind that is not voided', () => {
  const r = (id: number, kind: HealthRecord['kind'], date: string, nextDue?: string, voided = false): HealthRecord =>
    ({
      id,
      petId: 1,
      kind,
      date,
      name: `r${id}`,
      givenBy: 'Dr. A',
      recordedAt: '2026-01-01T00:00:00.000Z',
      ...(nextDue ? { nextDue } : {}),
      ...(voided ? { voided: { at: '2026-01-01T00:00:00.000Z', reason: 'wrong' } } : {}),
    }) as HealthRecord;
  // Newest first, as the log lists them.
  const log = [
    r(5, 'vaccination', '2026-03-01', '2027-03-01'),
    r(4, 'deworming', '2026-02-01', '2026-05-01', true),
    r(3, 'deworming', '2026-01-15', '2026-04-15'),
    r(2, 'exam', '2026-01-10'),
    r(1, 'exam', '2025-06-01', '2026-01-01'),
  ];
  assert.equal(nextCare(log)?.id, 3, 'the voided deworming does not count; the older exam is not the latest');
  assert.equal(nextCare(log.slice(0, 1))?.id, 5);
  assert.equal(nextCare([]), undefined);
  assert.equal(nextCare([r(2, 'exam', '2026-01-10'), r(1, 'exam', '2025-06-01', '2026-01-01')]), undefined, 'the latest exam names no next one');
});
