import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('loadConfig', () => {
  test('defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '127.0.0.1');
    assert.deepEqual(c.database, { engine: 'sqlite', path: 'data/petstore.db' });
    assert.deepEqual(c.bootstrapApiKeys, []);
    assert.equal(c.publicBaseUrl, '');
    assert.equal(c.logLevel, 'info');
    assert.equal(c.bodyLimitBytes, 65536);
    assert.equal(c.production, false);
    assert.ok(Object.isFrozen(c));
  });

  test('parses every variable', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgresql://u:p@localhost:5432/db',
      DATABASE_POOL_SIZE: '4',
      PETSTORE_API_KEYS: ' aaaaaaaaaaaaaaaa , bbbbbbbbbbbbbbbb,',
      PUBLIC_BASE_URL: 'https://api.example.com/v1/',
      STAGING_BASE_URL: 'https://staging.example.com/v1',
      LOG_LEVEL: 'DEBUG',
      NODE_ENV: 'production',
    });
    assert.equal(c.port, 9000);
    assert.equal(c.host, '0.0.0.0');
    assert.deepEqual(c.database, { engine: 'postgres', url: 'postgresql://u:p@localhost:5432/db', poolSize: 4 });
    assert.deepEqual(c.bootstrapApiKeys, ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb']);
    assert.equal(c.publicBaseUrl, 'https://api.example.com/v1');
    assert.equal(c.stagingBaseUrl, 'https://staging.example.com/v1');
    assert.equal(c.logLevel, 'debug');
    assert.equal(c.production, true);
  });

  test('sqlite::memory: selects an in-memory database', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).database, { engine: 'sqlite', path: ':memory:' });
  });

  const bad: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '-1' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'sqlite:' }, 'DATABASE_URL'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    [{ PETSTORE_API_KEYS: 'short' }, 'PETSTORE_API_KEYS'],
    [{ PUBLIC_BASE_URL: 'api.example.com/v1' }, 'PUBLIC_BASE_URL'],
    [{ PUBLIC_BASE_URL: 'https://api.example.com' }, 'PUBLIC_BASE_URL'],
    [{ PUBLIC_BASE_URL: 'ftp://api.example.com/v1' }, 'PUBLIC_BASE_URL'],
    [{ STAGING_BASE_URL: 'https://x/v1?a=b' }, 'STAGING_BASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ BODY_LIMIT_BYTES: '10' }, 'BODY_LIMIT_BYTES'],
  ];
  for (const [env, variable] of bad) {
    test(`rejects ${JSON.stringify(env)} naming ${variable}`, () => {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && err.variable === variable && err.message.startsWith(`${variable}: `) && !err.message.includes('\n'),
      );
    });
  }
});
