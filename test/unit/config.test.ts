import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const keyDir = mkdtempSync(join(tmpdir(), 'petstore-config-'));
let keyFiles = 0;
/** A file holding `text`, as a mounted secret would (the folder is removed with the OS's temp files). */
function keyFile(text: string): string {
  const path = join(keyDir, `key-${++keyFiles}`);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

describe('loadConfig', () => {
  test('STORE_CURRENCY: EUR by default; an ISO 4217 code in upper case, else a one-line error naming it', () => {
    assert.equal(loadConfig({}).storeCurrency, 'EUR');
    assert.equal(loadConfig({ STORE_CURRENCY: ' CHF ' }).storeCurrency, 'CHF');
    for (const bad of ['eur', 'EURO', 'XYZ', '€']) {
      assert.throws(
        () => loadConfig({ STORE_CURRENCY: bad }),
        (err: unknown) => err instanceof ConfigError && err.variable === 'STORE_CURRENCY' && err.message.includes(bad),
      );
    }
  });

  test("the animal's record: the §402 list by default, members in their own order, none, flags; unknown members refused naming the variable", () => {
    assert.deepEqual(loadConfig({}).record, {
      requiredFields: ['source', 'acquiredAt', 'birthDate', 'colour', 'sex', 'breed'],
      requiresMicrochip: false,
      enforceOnSale: false,
    });
    const c = loadConfig({ RECORD_REQUIRED_FIELDS: ' microchip, sex ,sex', RECORD_REQUIRES_MICROCHIP: 'true', RECORD_ENFORCE_ON_SALE: 'true' });
    assert.deepEqual(c.record, { requiredFields: ['sex', 'microchip'], requiresMicrochip: true, enforceOnSale: true });
    assert.deepEqual(loadConfig({ RECORD_REQUIRED_FIELDS: 'none' }).record.requiredFields, []);
    for (const [env, variable] of [
      [{ RECORD_REQUIRED_FIELDS: 'source,weight' }, 'RECORD_REQUIRED_FIELDS'],
      [{ RECORD_REQUIRED_FIELDS: 'Sex' }, 'RECORD_REQUIRED_FIELDS'],
      [{ RECORD_REQUIRES_MICROCHIP: 'yes' }, 'RECORD_REQUIRES_MICROCHIP'],
      [{ RECORD_ENFORCE_ON_SALE: '1' }, 'RECORD_ENFORCE_ON_SALE'],
    ] as const) {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && err.variable === variable,
      );
    }
  });

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
    assert.deepEqual(c.database, { engine: 'postgres', url: 'postgresql://u:p@localhost:5432/db', poolSize: 4, statementTimeoutMs: 5000 });
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

  test('hardening variables: defaults', () => {
    const c = loadConfig({});
    assert.equal(c.metricsPort, undefined);
    assert.equal(c.shutdownTimeoutMs, 10_000);
    assert.deepEqual(c.corsOrigins, []);
    assert.equal(c.rateLimitPerMinute, 600);
    assert.equal(c.authFailureLimitPerMinute, 60);
    assert.equal(c.redisUrl, '');
    assert.equal(c.trustProxy, false);
    assert.deepEqual([c.headersTimeoutMs, c.requestTimeoutMs, c.keepAliveTimeoutMs], [10_000, 30_000, 5_000]);
  });

  test('hardening variables: parsed', () => {
    const c = loadConfig({
      METRICS_PORT: '9464',
      SHUTDOWN_TIMEOUT_MS: '2500',
      CORS_ORIGINS: 'https://a.example.com, http://localhost:3000',
      RATE_LIMIT_PER_MINUTE: '0',
      AUTH_FAILURE_LIMIT_PER_MINUTE: '5',
      REDIS_URL: 'redis://cache:6379/0',
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '4000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
    });
    assert.equal(c.metricsPort, 9464);
    assert.equal(c.shutdownTimeoutMs, 2500);
    assert.deepEqual(c.corsOrigins, ['https://a.example.com', 'http://localhost:3000']);
    assert.equal(c.rateLimitPerMinute, 0);
    assert.equal(c.authFailureLimitPerMinute, 5);
    assert.equal(c.redisUrl, 'redis://cache:6379/0');
    assert.deepEqual([c.headersTimeoutMs, c.requestTimeoutMs, c.keepAliveTimeoutMs], [2000, 4000, 1000]);
  });

  test('hardening variables: invalid values name the variable', () => {
    const cases: [Record<string, string>, string][] = [
      [{ METRICS_PORT: 'x' }, 'METRICS_PORT'],
      [{ CORS_ORIGINS: 'app.example.com' }, 'CORS_ORIGINS'],
      [{ CORS_ORIGINS: 'https://a.example.com/' }, 'CORS_ORIGINS'],
      [{ RATE_LIMIT_PER_MINUTE: '-1' }, 'RATE_LIMIT_PER_MINUTE'],
      [{ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL'],
      [{ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' }, 'HEADERS_TIMEOUT_MS'],
      [{ SHUTDOWN_TIMEOUT_MS: '1.5' }, 'SHUTDOWN_TIMEOUT_MS'],
    ];
    for (const [env, variable] of cases) {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && err.variable === variable,
        JSON.stringify(env),
      );
    }
  });

  test('TRUST_PROXY: empty trusts no proxy; a hop count; or addresses, CIDR ranges and named ranges', () => {
    assert.equal(loadConfig({ TRUST_PROXY: ' ' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,fd00::/8 ,::1, loopback' }).trustProxy, [
      '10.0.0.0/8',
      '192.0.2.7',
      'fd00::/8',
      '::1',
      'loopback',
    ]);
    for (const bad of ['0', '17', 'true', '*', '10.0.0.0/33', 'fd00::/129', '10.0.0/8', 'proxy.internal', '10.0.0.1/8/8', '10.0.0.0/x']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: bad }),
        (err: unknown) => err instanceof ConfigError && err.variable === 'TRUST_PROXY',
        bad,
      );
    }
  });

  test('events and webhooks: defaults', () => {
    const c = loadConfig({});
    assert.equal(c.eventRetentionDays, 30);
    assert.deepEqual(c.webhooks, {
      timeoutMs: 10_000,
      retryScheduleMs: [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      disableAfterHours: 120,
      concurrency: 16,
      endpointConcurrency: 1,
      hostConcurrency: 4,
      maxEndpoints: 16,
      caCertificates: [],
      allowHttp: false,
      allowedHosts: [],
      secretKeys: [],
    });
  });

  test('events and webhooks: parsed', () => {
    const key = Buffer.alloc(32, 7);
    const c = loadConfig({
      EVENT_RETENTION_DAYS: '7',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_SCHEDULE_MS: '0, 100,2000',
      WEBHOOK_DISABLE_AFTER_HOURS: '24',
      WEBHOOK_CONCURRENCY: '4',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      WEBHOOK_HOST_CONCURRENCY: '3',
      WEBHOOK_MAX_ENDPOINTS: '100',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1, Hooks.Internal ,[::1],fd00::1, hooks.internal:8443,10.0.0.9:*,[FD00::2]:9000',
      WEBHOOK_SECRET_KEY: `${key.toString('base64')},${Buffer.alloc(32, 8).toString('base64url')}`,
    });
    assert.equal(c.eventRetentionDays, 7);
    assert.deepEqual(c.webhooks, {
      timeoutMs: 2000,
      retryScheduleMs: [0, 100, 2000],
      disableAfterHours: 24,
      concurrency: 4,
      endpointConcurrency: 2,
      hostConcurrency: 3,
      maxEndpoints: 100,
      caCertificates: [],
      allowHttp: true,
      // A bare host: ports 80 and 443 only.
      allowedHosts: [
        '127.0.0.1:80',
        '127.0.0.1:443',
        'hooks.internal:80',
        'hooks.internal:443',
        '[::1]:80',
        '[::1]:443',
        '[fd00::1]:80',
        '[fd00::1]:443',
        'hooks.internal:8443',
        '10.0.0.9:*',
        '[fd00::2]:9000',
      ],
      secretKeys: [key, Buffer.alloc(32, 8)],
    });
  });

  test('WEBHOOK_SECRET_KEY_FILE: the keys read from a file (a mounted secret), its line end ignored', () => {
    const keys = `${Buffer.alloc(32, 7).toString('base64')},${Buffer.alloc(32, 8).toString('base64url')}`;
    const c = loadConfig({ WEBHOOK_SECRET_KEY_FILE: keyFile(`${keys}\n`) });
    assert.deepEqual(c.webhooks.secretKeys, [Buffer.alloc(32, 7), Buffer.alloc(32, 8)]);
  });

  test('events and webhooks: invalid values name the variable in one line', () => {
    const cases: [Record<string, string>, string][] = [
      [{ EVENT_RETENTION_DAYS: '0' }, 'EVENT_RETENTION_DAYS'],
      [{ WEBHOOK_TIMEOUT_MS: '10' }, 'WEBHOOK_TIMEOUT_MS'],
      [{ WEBHOOK_RETRY_SCHEDULE_MS: '5000,10000' }, 'WEBHOOK_RETRY_SCHEDULE_MS'],
      [{ WEBHOOK_RETRY_SCHEDULE_MS: '0,5s' }, 'WEBHOOK_RETRY_SCHEDULE_MS'],
      [{ WEBHOOK_RETRY_SCHEDULE_MS: '0,,1' }, 'WEBHOOK_RETRY_SCHEDULE_MS'],
      [{ WEBHOOK_DISABLE_AFTER_HOURS: '0' }, 'WEBHOOK_DISABLE_AFTER_HOURS'],
      [{ WEBHOOK_CONCURRENCY: '0' }, 'WEBHOOK_CONCURRENCY'],
      [{ WEBHOOK_ENDPOINT_CONCURRENCY: '101' }, 'WEBHOOK_ENDPOINT_CONCURRENCY'],
      [{ WEBHOOK_ALLOW_HTTP: 'yes' }, 'WEBHOOK_ALLOW_HTTP'],
      [{ WEBHOOK_ALLOWED_HOSTS: 'https://hooks.internal' }, 'WEBHOOK_ALLOWED_HOSTS'],
      [{ WEBHOOK_ALLOWED_HOSTS: 'hooks.internal/x' }, 'WEBHOOK_ALLOWED_HOSTS'],
      [{ WEBHOOK_ALLOWED_HOSTS: 'hooks.internal:0' }, 'WEBHOOK_ALLOWED_HOSTS'],
      [{ WEBHOOK_ALLOWED_HOSTS: 'hooks.internal:65536' }, 'WEBHOOK_ALLOWED_HOSTS'],
      [{ WEBHOOK_ALLOWED_HOSTS: 'hooks.internal:' }, 'WEBHOOK_ALLOWED_HOSTS'],
      [{ WEBHOOK_ALLOWED_HOSTS: 'user@hooks.internal:443' }, 'WEBHOOK_ALLOWED_HOSTS'],
      [{ WEBHOOK_HOST_CONCURRENCY: '0' }, 'WEBHOOK_HOST_CONCURRENCY'],
      [{ WEBHOOK_MAX_ENDPOINTS: '0' }, 'WEBHOOK_MAX_ENDPOINTS'],
      [{ WEBHOOK_CA_FILE: '/nonexistent/ca.pem' }, 'WEBHOOK_CA_FILE'],
      [{ WEBHOOK_CA_FILE: 'package.json' }, 'WEBHOOK_CA_FILE'],
      [{ WEBHOOK_SECRET_KEY: 'c2hvcnQ=' }, 'WEBHOOK_SECRET_KEY'],
      [{ WEBHOOK_SECRET_KEY: `${'A'.repeat(43)}=!` }, 'WEBHOOK_SECRET_KEY'],
      [{ WEBHOOK_SECRET_KEY_FILE: '/nonexistent/key' }, 'WEBHOOK_SECRET_KEY_FILE'],
      [{ WEBHOOK_SECRET_KEY_FILE: 'package.json' }, 'WEBHOOK_SECRET_KEY_FILE'],
      [{ WEBHOOK_SECRET_KEY_FILE: keyFile('  \n'), WEBHOOK_SECRET_KEY: '' }, 'WEBHOOK_SECRET_KEY_FILE'],
      [
        { WEBHOOK_SECRET_KEY_FILE: keyFile(Buffer.alloc(32, 1).toString('base64')), WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') },
        'WEBHOOK_SECRET_KEY_FILE',
      ],
    ];
    for (const [env, variable] of cases) {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && err.variable === variable && !err.message.includes('\n'),
        JSON.stringify(env),
      );
    }
  });
});
