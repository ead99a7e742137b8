// Calendar dates against the clock (src/calendar.ts): "today" is the latest date anywhere on Earth.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNotFuture, latestToday } from '../../src/calendar.ts';
import { assertRecordDates } from '../../src/health/health.service.ts';
import { rejectsWith } from '../helpers/errors.ts';

test('latestToday is the date at UTC+14: the next day from 10:00 UTC on', () => {
  assert.equal(latestToday(new Date('2026-11-28T09:59:59.999Z')), '2026-11-28');
  assert.equal(latestToday(new Date('2026-11-28T10:00:00.000Z')), '2026-11-29');
  assert.equal(latestToday(new Date('2026-12-31T23:00:00.000Z')), '2027-01-01');
});

test('assertNotFuture accepts today anywhere and refuses the day after, naming the field', () => {
  const now = new Date('2026-11-28T12:00:00.000Z');
  assertNotFuture('date', '2026-11-29', now);
  assertNotFuture('date', '1999-01-01', now);
  assert.throws(
    () => assertNotFuture('birthDate', '2026-11-30', now),
    rejectsWith('validation_failed', /"birthDate" must not be in the future \(it is 2026-11-29/),
  );
});

test('a health record: nextDue on or after date', () => {
  const now = new Date('2026-11-28T12:00:00.000Z');
  const record = { kind: 'vaccination', date: '2026-11-01', name: 'x', givenBy: 'y' } as const;
  assertRecordDates({ ...record, nextDue: '2026-11-01' }, now);
  assert.throws(
    () => assertRecordDates({ ...record, nextDue: '2026-10-31' }, now),
    rejectsWith('validation_failed', /"nextDue" must be on or after "date" \(2026-11-01\)/),
  );
  assert.throws(() => assertRecordDates({ ...record, date: '2026-12-01' }, now), rejectsWith('validation_failed', /"date"/));
});
