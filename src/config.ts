// Configuration is read once, from an environment-like record, into a frozen object.
// Anything invalid throws ConfigError naming the variable; main.ts prints that one line and exits.
import { isIP } from 'node:net';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export type DatabaseConfig =
  | { readonly engine: 'sqlite'; readonly path: string } // ':memory:' for an in-memory database
  | { readonly engine: 'postgres'; readonly url: string; readonly poolSize: number };

/** How webhooks are delivered (docs/events.md). */
export interface WebhookSettings {
  /** An attempt succeeds only with a 2xx within this. */
  readonly timeoutMs: number;
  /** Delay before each attempt, the first (always 0: at once) included; its length is the number of attempts. */
  readonly retryScheduleMs: readonly number[];
  /** An endpoint whose deliveries all failed for this long is disabled. */
  readonly disableAfterHours: number;
  /** Attempts in flight at once, per instance. */
  readonly concurrency: number;
  /** Attempts in flight at once to one endpoint, across every instance. */
  readonly endpointConcurrency: number;
  /** Accept http: URLs (development only). */
  readonly allowHttp: boolean;
  /** Host names and addresses exempt from the public-address rule (lower case, IPv6 without brackets). */
  readonly allowedHosts: readonly string[];
  /** Keys that encrypt stored signing secrets: the first encrypts, all decrypt; empty → a key kept in the database. */
  readonly secretKeys: readonly Buffer[];
}

const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseConfig;
  readonly bootstrapApiKeys: readonly string[];
  readonly publicBaseUrl: string; // '' → relative links; otherwise absolute, ending in /v1, no trailing slash
  readonly stagingBaseUrl: string;
  readonly logLevel: LogLevel;
  readonly production: boolean;
  readonly bodyLimitBytes: number;
  /** Separate port for /metrics, /healthz, /readyz; undefined → served on the main port. */
  readonly metricsPort: number | undefined;
  readonly shutdownTimeoutMs: number;
  /** Origins allowed by CORS; empty → CORS off. ['*'] → any origin. */
  readonly corsOrigins: readonly string[];
  /** Requests per minute per API key; 0 disables. */
  readonly rateLimitPerMinute: number;
  /** Failed authentications per minute per client address; 0 disables. */
  readonly authFailureLimitPerMinute: number;
  /** Shared rate-limit state; '' → per instance. */
  readonly redisUrl: string;
  /**
   * Which proxies in front may name the client (X-Forwarded-For): false → none, the TCP peer is
   * the client; a number → that many hops; a list → addresses, CIDR ranges or proxy-addr's
   * `loopback`, `linklocal`, `uniquelocal`. Fastify's `trustProxy` takes each form as is.
   */
  readonly trustProxy: false | number | readonly string[];
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Events (and delivery log entries) older than this are purged. */
  readonly eventRetentionDays: number;
  readonly webhooks: WebhookSettings;
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function value(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const trimmed = raw.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** The entries of a comma-separated value, trimmed, empty ones dropped; none when it is unset. */
function list(raw: string | undefined): string[] {
  return raw === undefined
    ? []
    : raw
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e !== '');
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function origins(env: Env, name: string): string[] {
  const entries = list(value(env, name));
  for (const o of entries) {
    if (o === '*') continue;
    let url: URL | undefined;
    try {
      url = new URL(o);
    } catch {}
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== o) {
      throw new ConfigError(name, `each entry must be an origin such as https://app.example.com (scheme, host, optional port, nothing else) or *, got "${o}"`);
    }
  }
  return entries;
}

function redisUrl(env: Env, name: string): string {
  const raw = value(env, name);
  if (raw === undefined) return '';
  if (!/^rediss?:\/\//.test(raw)) throw new ConfigError(name, 'must start with redis:// or rediss://');
  try {
    new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid redis:// URL');
  }
  return raw;
}

const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

function trustProxy(env: Env, name: string): false | number | readonly string[] {
  const raw = value(env, name);
  if (raw === undefined) return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > 16) throw new ConfigError(name, `a hop count must be between 1 and 16 (leave it empty to trust no proxy), got ${hops}`);
    return hops;
  }
  const entries = list(raw);
  for (const entry of entries) {
    if (PROXY_RANGES.includes(entry)) continue;
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const validPrefix = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !validPrefix || rest.length > 0) {
      throw new ConfigError(
        name,
        `each entry must be an IP address, a CIDR range (10.0.0.0/8, fd00::/8), loopback, linklocal or uniquelocal — or the whole value a hop count; got "${entry}"`,
      );
    }
  }
  return Object.freeze(entries);
}

function baseUrl(env: Env, name: string): string {
  const raw = value(env, name);
  if (raw === undefined) return '';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected an absolute http(s) URL such as https://api.example.com/v1, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `expected an http or https URL, got "${raw}"`);
  }
  if (url.search || url.hash) throw new ConfigError(name, 'must not contain a query string or fragment');
  const text = url.href.replace(/\/+$/, '');
  if (!text.endsWith('/v1')) throw new ConfigError(name, `must end with the version segment /v1, got "${raw}"`);
  return text;
}

function boolean(env: Env, name: string): boolean {
  const raw = value(env, name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function retrySchedule(env: Env, name: string): readonly number[] {
  const raw = value(env, name);
  if (raw === undefined) return DEFAULT_RETRY_SCHEDULE_MS;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 50 || parts.some((p) => !/^\d{1,10}$/.test(p))) {
    throw new ConfigError(name, `expected 1 to 50 comma-separated delays in milliseconds such as 0,5000,300000, got "${raw}"`);
  }
  const delays = parts.map(Number);
  if (delays[0] !== 0)
    throw new ConfigError(name, `the first delay is that of the first attempt and must be 0 (first attempts are made at once), got ${delays[0]}`);
  return Object.freeze(delays);
}

function hostList(env: Env, name: string): string[] {
  return list(value(env, name)).map((entry) => {
    const h = entry.toLowerCase();
    const bare = h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
    if (isIP(bare) === 6) return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
    let host = '';
    try {
      const url = new URL(`http://${bare}/`);
      if (url.port === '' && url.pathname === '/' && url.username === '') host = url.hostname;
    } catch {}
    if (host === '' || host !== bare) throw new ConfigError(name, `each entry must be a host name or an IP address (no scheme, port or path), got "${h}"`);
    return host;
  });
}

function secretKeys(env: Env, name: string): Buffer[] {
  const raw = value(env, name);
  if (raw === undefined) return [];
  return raw.split(',').map((k) => {
    const key = Buffer.from(k.trim(), 'base64');
    if (key.length !== 32 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(k.trim())) {
      throw new ConfigError(name, 'each key must be 32 random bytes in base64 (`openssl rand -base64 32`); separate several with commas, the first encrypts');
    }
    return key;
  });
}

export function parseDatabaseUrl(raw: string, poolSize: number, variable = 'DATABASE_URL'): DatabaseConfig {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length);
    if (path === '') throw new ConfigError(variable, 'sqlite: needs a file path, e.g. sqlite:data/petstore.db or sqlite::memory:');
    return Object.freeze({ engine: 'sqlite', path });
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError(variable, 'is not a valid postgres:// URL');
    }
    return Object.freeze({ engine: 'postgres', url: raw, poolSize });
  }
  throw new ConfigError(variable, 'must start with sqlite: or postgres:// (or postgresql://)');
}

export function loadConfig(env: Env): Config {
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  // Node refuses a header deadline later than the whole-request deadline.
  if (headersTimeoutMs > requestTimeoutMs)
    throw new ConfigError('HEADERS_TIMEOUT_MS', `must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got ${headersTimeoutMs}`);
  const logLevel = (value(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const host = value(env, 'HOST') ?? '127.0.0.1';
  const poolSize = integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000);
  const keys = list(value(env, 'PETSTORE_API_KEYS'));
  for (const key of keys) {
    if (key.length < 16 || /\s/.test(key)) {
      throw new ConfigError('PETSTORE_API_KEYS', 'each key must be at least 16 characters with no spaces (use `petstore keys create` for strong keys)');
    }
  }
  return Object.freeze({
    port: integer(env, 'PORT', 8080, 0, 65535),
    host,
    database: parseDatabaseUrl(value(env, 'DATABASE_URL') ?? 'sqlite:data/petstore.db', poolSize),
    bootstrapApiKeys: Object.freeze(keys),
    publicBaseUrl: baseUrl(env, 'PUBLIC_BASE_URL'),
    stagingBaseUrl: baseUrl(env, 'STAGING_BASE_URL'),
    logLevel: logLevel as LogLevel,
    production: value(env, 'NODE_ENV') === 'production',
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 64 * 1024, 1024, 100 * 1024 * 1024),
    metricsPort: value(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65535),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    corsOrigins: Object.freeze(origins(env, 'CORS_ORIGINS')),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
    authFailureLimitPerMinute: integer(env, 'AUTH_FAILURE_LIMIT_PER_MINUTE', 60, 0, 1_000_000),
    redisUrl: redisUrl(env, 'REDIS_URL'),
    trustProxy: trustProxy(env, 'TRUST_PROXY'),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 30, 1, 3650),
    webhooks: Object.freeze({
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      retryScheduleMs: retrySchedule(env, 'WEBHOOK_RETRY_SCHEDULE_MS'),
      disableAfterHours: integer(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 8760),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 16, 1, 1000),
      endpointConcurrency: integer(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 1, 1, 100),
      allowHttp: boolean(env, 'WEBHOOK_ALLOW_HTTP'),
      allowedHosts: Object.freeze(hostList(env, 'WEBHOOK_ALLOWED_HOSTS')),
      secretKeys: Object.freeze(secretKeys(env, 'WEBHOOK_SECRET_KEY')),
    }),
  });
}
