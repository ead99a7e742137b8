import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { displayPrefix, generateKey, hashKey, parseScopes } from '../../src/keys/key.service.ts';
import { parseBearer } from '../../src/http/policies/auth.ts';
import { DEFAULT_SCOPES, SCOPES } from '../../src/keys/key.types.ts';

describe('API keys', () => {
  test('are pst_ + 43 base64url characters (256 bits) and never repeat', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateKey));
    assert.equal(keys.size, 1000);
    for (const k of keys) assert.match(k, /^pst_[A-Za-z0-9_-]{43}$/);
  });

  test('hash is hex SHA-256 of the whole key', () => {
    const k = generateKey();
    assert.equal(hashKey(k), createHash('sha256').update(k).digest('hex'));
    assert.notEqual(hashKey(k), hashKey(`${k}x`));
  });

  test('display prefix shows 4 secret characters at most', () => {
    assert.equal(displayPrefix('pst_abcdefgh'), 'pst_abcd');
  });

  test('scopes default to the default set, parse lists, and refuse unknown names', () => {
    assert.deepEqual(parseScopes(undefined), [...DEFAULT_SCOPES]);
    assert.deepEqual(parseScopes('  '), [...DEFAULT_SCOPES]);
    assert.deepEqual(parseScopes('keys:admin,pets:read,keys:admin'), ['keys:admin', 'pets:read']);
    assert.ok(DEFAULT_SCOPES.includes('events:read'), 'events:read is in the default set');
    assert.ok(!DEFAULT_SCOPES.includes('webhooks:admin') && SCOPES.includes('webhooks:admin'), 'webhooks:admin only when asked for');
    assert.deepEqual(parseScopes('pets:read,webhooks:admin'), ['pets:read', 'webhooks:admin']);
    assert.deepEqual(parseScopes('pets:read, orders:read'), ['pets:read', 'orders:read']);
    assert.throws(() => parseScopes('pets:admin'), /unknown scope "pets:admin"/);
  });

  test('`all` names every scope, the admin ones included, and stands alone', () => {
    assert.deepEqual(parseScopes('all'), [...SCOPES]);
    assert.deepEqual(parseScopes(' all '), [...SCOPES]);
    assert.throws(() => parseScopes('all,pets:read'), /"all" stands alone/);
    assert.throws(() => parseScopes('ALL'), /unknown scope "ALL".*, or all$/);
  });

  test('the default set holds every scope but the admin ones and those of personal data, which are granted only by name', () => {
    for (const s of DEFAULT_SCOPES) assert.ok(SCOPES.includes(s), s);
    assert.ok(!DEFAULT_SCOPES.includes('keys:admin'));
    assert.ok(DEFAULT_SCOPES.includes('categories:write'));
    for (const s of SCOPES)
      if (!DEFAULT_SCOPES.includes(s)) assert.match(s, /:admin$|^customers:|^staff:read$|^activity:read$/, `${s} is left out of the default set`);
    assert.ok(!DEFAULT_SCOPES.includes('customers:read') && !DEFAULT_SCOPES.includes('customers:write'));
  });

  test('parseBearer accepts RFC 6750 b64token and any scheme case', () => {
    assert.equal(parseBearer('Bearer abc.DEF-_~+/=='), 'abc.DEF-_~+/==');
    assert.equal(parseBearer('bearer   tok'), 'tok');
    for (const h of [undefined, '', 'Bearer', 'Bearer ', 'Basic abc', 'Bearer a b', 'Bearertok', 'Bearer tök'])
      assert.equal(parseBearer(h), undefined, String(h));
  });
});
