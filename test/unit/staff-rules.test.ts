// The staff rules that need no app: the role table, who manages whom, the password policy, and
// Argon2id hashing with its bounded queue.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AppError } from '../../src/errors.ts';
import { SCOPES } from '../../src/keys/key.types.ts';
import { ARGON2, checkPassword, COMMON_PASSWORDS, PasswordHasher } from '../../src/staff/staff.password.ts';
import { managesRole, ROLE_SCOPES, ROLES } from '../../src/staff/staff.roles.ts';

const refusal = (fn: () => void): AppError => {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a refusal');
};

describe('roles', () => {
  test('an owner holds every scope; a manager every one but keys:admin; a clerk writes animals, health and orders; a viewer only reads', () => {
    assert.deepEqual(ROLE_SCOPES.owner, SCOPES);
    assert.deepEqual(
      SCOPES.filter((s) => !ROLE_SCOPES.manager.includes(s)),
      ['keys:admin'],
    );
    assert.deepEqual([...ROLE_SCOPES.clerk].sort(), [
      'customers:read',
      'customers:write',
      'health:read',
      'health:write',
      'orders:read',
      'orders:write',
      'pets:read',
      'pets:write',
    ]);
    assert.ok(!ROLE_SCOPES.viewer.includes('customers:read'), "a viewer does not read the customers' personal data");
    for (const s of ROLE_SCOPES.viewer) assert.match(s, /:read$/);
    assert.ok(!ROLE_SCOPES.viewer.includes('staff:read'), "a viewer does not read the staff's addresses");
    for (const role of ROLES) for (const s of ROLE_SCOPES[role]) assert.ok(SCOPES.includes(s), `${role}: ${s}`);
  });

  test('an owner manages every role; anyone else only clerks and viewers', () => {
    for (const role of ROLES) assert.equal(managesRole(true, role), true, role);
    assert.deepEqual(
      ROLES.filter((r) => managesRole(false, r)),
      ['clerk', 'viewer'],
    );
  });
});

describe('passwords', () => {
  test('at least 12 characters (code points), and not in the shipped list of common passwords, in any case', () => {
    assert.equal(refusal(() => checkPassword('short pass1', 'password')).errors?.[0].rule, 'minLength');
    // 11 emoji are 22 UTF-16 units but 11 characters.
    assert.equal(refusal(() => checkPassword('🐶'.repeat(11), 'password')).errors?.[0].rule, 'minLength');
    assert.equal(refusal(() => checkPassword('1QAZ2WSX3EDC', 'newPassword')).errors?.[0].field, 'newPassword');
    assert.equal(refusal(() => checkPassword('qwertyuiopasdfghjkl', 'password')).errors?.[0].rule, 'commonPassword');
    assert.doesNotThrow(() => checkPassword('tabby-ferret-lantern', 'password'));
    assert.equal(COMMON_PASSWORDS, 43_940);
  });

  test('Argon2id at OWASP minimums or more, as a PHC string; verified in constant time against its own parameters', async () => {
    assert.ok(ARGON2.memory >= 19_456 && ARGON2.passes >= 2 && ARGON2.parallelism >= 1);
    const hasher = new PasswordHasher();
    const phc = await hasher.hash('tabby-ferret-lantern');
    assert.match(phc, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    assert.notEqual(await hasher.hash('tabby-ferret-lantern'), phc, 'a new salt each time');
    assert.equal(await hasher.verify(phc, 'tabby-ferret-lantern'), true);
    assert.equal(await hasher.verify(phc, 'tabby-ferret-lanterN'), false);
    // No stored hash (an unknown address): verified against a decoy, always false.
    assert.equal(await hasher.verify(null, 'tabby-ferret-lantern'), false);
    assert.equal(await hasher.verify('not a phc string', 'x'), false);
  });

  test('a full queue refuses with 503 and Retry-After instead of waiting', async () => {
    const hasher = new PasswordHasher({ concurrency: 1, queue: 1 });
    const running = hasher.hash('first-password-x');
    const waiting = hasher.hash('second-password-x');
    await assert.rejects(hasher.hash('third-password-x'), (err: AppError) => err.code === 'service_unavailable' && err.headers['retry-after'] === '1');
    await Promise.all([running, waiting]);
    // Room again once they are done.
    assert.match(await hasher.hash('fourth-password-x'), /^\$argon2id\$/);
  });
});
