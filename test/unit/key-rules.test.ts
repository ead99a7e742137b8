// The pure rules of the key tree (src/keys/key.rules.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { childExpiry, keyIsActive, manages, OPERATOR, treeRoot } from '../../src/keys/key.rules.ts';
import { rejectsWith } from '../helpers/errors.ts';

const now = new Date('2026-06-01T00:00:00.000Z');

test('keyIsActive: not revoked and before its expiry, read from ISO strings or epoch milliseconds alike', () => {
  assert.equal(keyIsActive({ revokedAt: null, expiresAt: null }, now), true);
  assert.equal(keyIsActive({ revokedAt: '2026-05-01T00:00:00.000Z', expiresAt: null }, now), false);
  assert.equal(keyIsActive({ revokedAt: 1, expiresAt: null }, now), false);
  assert.equal(keyIsActive({ revokedAt: null, expiresAt: '2026-06-01T00:00:00.001Z' }, now), true);
  assert.equal(keyIsActive({ revokedAt: null, expiresAt: '2026-06-01T00:00:00.000Z' }, now), false, 'refused from the instant of its expiry');
  assert.equal(keyIsActive({ revokedAt: null, expiresAt: now.getTime() + 1 }, now), true);
  assert.equal(keyIsActive({ revokedAt: null, expiresAt: now.getTime() }, now), false);
});

test('childExpiry: a key without an expiry takes its parent’s; an earlier one is kept; a later one is refused', () => {
  assert.equal(childExpiry(null, null), null);
  assert.deepEqual(childExpiry(null, now), now);
  assert.deepEqual(childExpiry('2027-01-01T00:00:00.000Z', null), new Date('2027-01-01T00:00:00.000Z'));
  assert.deepEqual(childExpiry('2027-01-01T00:00:00.000Z', now), now);
  assert.deepEqual(childExpiry('2027-01-01T00:00:00.000Z', new Date('2027-01-01T00:00:00.000Z')), new Date('2027-01-01T00:00:00.000Z'));
  assert.throws(() => childExpiry('2027-01-01T00:00:00.000Z', new Date('2027-01-01T00:00:00.001Z')), rejectsWith('validation_failed'));
});

test('manages: owners and the operator manage every key; a key manages itself and its descendants only', () => {
  assert.equal(manages(OPERATOR, 7, []), true);
  assert.equal(manages({ keyId: 1, owner: true }, 7, []), true);
  assert.equal(manages({ keyId: null, owner: true }, 7, [3]), true, 'a bootstrap key');
  assert.equal(manages({ keyId: 7, owner: false }, 7, []), true, 'itself');
  assert.equal(manages({ keyId: 3, owner: false }, 7, [5, 3]), true, 'a grandchild');
  assert.equal(manages({ keyId: 5, owner: false }, 3, []), false, 'not its parent');
  assert.equal(manages({ keyId: 4, owner: false }, 7, [5, 3]), false, 'not another subtree');
  assert.equal(manages({ keyId: null, owner: false }, 7, []), false);
});

test('treeRoot: the topmost key below an owner key, or the top-level key when that is not an owner', () => {
  assert.equal(treeRoot([7], false), 7, 'a top-level key roots its tree');
  assert.equal(treeRoot([7], true), 7, 'an owner key counts alone');
  assert.equal(treeRoot([9, 5, 3], false), 3);
  assert.equal(treeRoot([9, 5, 1], true), 5, 'below an owner key, each key it made starts a tree');
  assert.equal(treeRoot([5, 1], true), 5);
});
