// The activity log's pure parts: what an update changed, who may see it, the CSV row, the retention.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changesOf } from '../../src/activity/activity.changes.ts';
import { activityRetention, activityRow, readableEntry } from '../../src/activity/activity.service.ts';
import { mayReadChanges } from '../../src/events/event.access.ts';

test('changesOf lists each member that differs as [before, after], null for an absent side, bookkeeping left out', () => {
  assert.deepEqual(
    changesOf(
      { name: 'Rex', price: { amount: 1999 }, tags: ['calm'], updatedAt: 'a' },
      { name: 'Rex', price: { amount: 2150 }, tags: ['calm'], breed: { primary: 'Poodle' }, updatedAt: 'b' },
    ),
    { price: [{ amount: 1999 }, { amount: 2150 }], breed: [null, { primary: 'Poodle' }] },
  );
  assert.deepEqual(changesOf({ name: 'Rex' }, { name: 'Rex' }), {});
});

test("a customer's changes are read with customers:read only; a write no event describes shows its own", () => {
  assert.equal(mayReadChanges(['activity:read'], 'customer.updated'), false);
  assert.equal(mayReadChanges(['activity:read', 'customers:read'], 'customer.updated'), true);
  assert.equal(mayReadChanges(['activity:read'], 'pet.updated'), false);
  assert.equal(mayReadChanges(['activity:read', 'pets:read'], 'pet.updated'), true);
  assert.equal(mayReadChanges(['activity:read'], 'staff.updated'), true);
  const entry = {
    id: 1,
    at: '2026-11-22T12:00:00.000Z',
    actor: { type: 'staff' as const, id: 3, name: 'Ada' },
    type: 'customer.updated',
    resource: 'customer:1',
    changes: { name: ['A', 'B'] },
  };
  assert.equal(readableEntry(entry, ['activity:read']).changes, undefined);
  assert.deepEqual(readableEntry(entry, ['activity:read', 'customers:read']), entry);
});

test('a CSV row quotes what it must and defuses what a spreadsheet would run', () => {
  const row = activityRow({
    id: 7,
    at: '2026-11-22T12:00:00.000Z',
    actor: { type: 'key', id: null, name: '=HYPERLINK("x")' },
    type: 'pet.updated',
    resource: 'pet:4',
    changes: { name: ['Rex', 'Rex, II'] },
  });
  assert.equal(row, `7,2026-11-22T12:00:00.000Z,key,,"'=HYPERLINK(""x"")",pet.updated,pet:4,"{""name"":[""Rex"",""Rex, II""]}"\r\n`);
});

test('the log is kept ACTIVITY_RETENTION_DAYS, never less than the event feed', () => {
  assert.equal(activityRetention({ activityRetentionDays: 730, eventRetentionDays: 30 }), 730);
  assert.equal(activityRetention({ activityRetentionDays: 10, eventRetentionDays: 30 }), 30);
});
