// Configuration is read once, from an environment-like record, into a frozen object. SETTINGS is
// the one table of it: each setting, the variable it is read from, its default and its rule; the
// Config type is derived from the table. Anything invalid throws ConfigError naming the variable;
// main.ts prints that one line and exits.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { RECORD_FIELDS, RECORD_REQUIRED_DEFAULT, type RecordField } from './pets/pet.schemas.ts';

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** How one setting is read from the environment; throws ConfigError for a value it refuses. */
type Setting<T> = (env: Env) => T;

/** The trimmed value of `name`; undefined when unset or blank. */
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

/** Each whole-number setting's bounds, by variable: what README.md's configuration table states (a test compares them). */
const bounds = new Map<string, { readonly min: number; readonly max: number }>();
export const INTEGER_BOUNDS: ReadonlyMap<string, { readonly min: number; readonly max: number }> = bounds;

/** A whole number between `min` and `max`. */
const integer = (name: string, fallback: number, min: number, max: number): Setting<number> => {
  bounds.set(name, { min, max });
  return (env) => {
    const raw = value(env, name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
    return n;
  };
};

/** Like integer, without a default: undefined when unset. */
const optionalInteger = (name: string, min: number, max: number): Setting<number | undefined> => {
  const read = integer(name, min, min, max);
  return (env) => (value(env, name) === undefined ? undefined : read(env));
};

const text =
  (name: string, fallback: string): Setting<string> =>
  (env) =>
    value(env, name) ?? fallback;

/** One of `choices`, in any case. */
const oneOf =
  <const T extends string>(name: string, choices: readonly T[], fallback: NoInfer<T>): Setting<T> =>
  (env) => {
    const raw = (value(env, name) ?? fallback).toLowerCase();
    if (!choices.includes(raw as T)) throw new ConfigError(name, `must be one of ${choices.join(', ')}, got "${raw}"`);
    return raw as T;
  };

/** `true` or `false` (the default). */
const flag =
  (name: string): Setting<boolean> =>
  (env) => {
    const raw = value(env, name);
    if (raw === undefined || raw === 'false') return false;
    if (raw === 'true') return true;
    throw new ConfigError(name, `must be true or false, got "${raw}"`);
  };

const apiKeys =
  (name: string): Setting<readonly string[]> =>
  (env) => {
    const keys = list(value(env, name));
    for (const key of keys) {
      if (key.length < 16 || /\s/.test(key)) {
        throw new ConfigError(name, 'each key must be at least 16 characters with no spaces (use `petstore keys create` for strong keys)');
      }
    }
    return Object.freeze(keys);
  };

/** '' → relative links; otherwise an absolute http(s) URL ending in /v1, without a trailing slash. */
const baseUrl =
  (name: string): Setting<string> =>
  (env) => {
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
  };

/** Origins (scheme, host, optional port) or `*`; empty → none. */
const origins =
  (name: string): Setting<readonly string[]> =>
  (env) => {
    const entries = list(value(env, name));
    for (const o of entries) {
      if (o === '*') continue;
      let url: URL | undefined;
      try {
        url = new URL(o);
      } catch {}
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== o) {
        throw new ConfigError(
          name,
          `each entry must be an origin such as https://app.example.com (scheme, host, optional port, nothing else) or *, got "${o}"`,
        );
      }
    }
    return Object.freeze(entries);
  };

/** '' → none. */
const redisUrl =
  (name: string): Setting<string> =>
  (env) => {
    const raw = value(env, name);
    if (raw === undefined) return '';
    if (!/^rediss?:\/\//.test(raw)) throw new ConfigError(name, 'must start with redis:// or rediss://');
    try {
      new URL(raw);
    } catch {
      throw new ConfigError(name, 'is not a valid redis:// URL');
    }
    return raw;
  };

const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** false (no proxy), a hop count, or a list of addresses, CIDR ranges and proxy-addr's named ranges. */
const trustProxy =
  (name: string): Setting<false | number | readonly string[]> =>
  (env) => {
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
  };

/** Which engine, where: `sqlite:<path>` (`sqlite::memory:` for an in-memory database) or a postgres:// URL. */
const database =
  (name: string, poolSize: Setting<number>, statementTimeoutMs: Setting<number>) =>
  (env: Env): Readonly<{ engine: 'sqlite'; path: string }> | Readonly<{ engine: 'postgres'; url: string; poolSize: number; statementTimeoutMs?: number }> => {
    const raw = value(env, name) ?? 'sqlite:data/petstore.db';
    const pool = poolSize(env);
    const statementMs = statementTimeoutMs(env);
    if (raw.startsWith('sqlite:')) {
      const path = raw.slice('sqlite:'.length);
      if (path === '') throw new ConfigError(name, 'sqlite: needs a file path, e.g. sqlite:data/petstore.db or sqlite::memory:');
      return Object.freeze({ engine: 'sqlite', path });
    }
    if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
      try {
        new URL(raw);
      } catch {
        throw new ConfigError(name, 'is not a valid postgres:// URL');
      }
      return Object.freeze({ engine: 'postgres', url: raw, poolSize: pool, statementTimeoutMs: statementMs });
    }
    throw new ConfigError(name, 'must start with sqlite: or postgres:// (or postgresql://)');
  };

/** Delays in milliseconds, the first 0. */
const retrySchedule =
  (name: string, fallback: readonly number[]): Setting<readonly number[]> =>
  (env) => {
    const raw = value(env, name);
    if (raw === undefined) return fallback;
    const parts = raw.split(',').map((p) => p.trim());
    if (parts.length > 50 || parts.some((p) => !/^\d{1,10}$/.test(p))) {
      throw new ConfigError(name, `expected 1 to 50 comma-separated delays in milliseconds such as 0,5000,300000, got "${raw}"`);
    }
    const delays = parts.map(Number);
    if (delays[0] !== 0)
      throw new ConfigError(name, `the first delay is that of the first attempt and must be 0 (first attempts are made at once), got ${delays[0]}`);
    return Object.freeze(delays);
  };

/** Host names and addresses, lower case, IPv6 without brackets. */
/**
 * WEBHOOK_ALLOWED_HOSTS: `host:port` entries (`host:*`: every port); a bare host stands for ports
 * 80 and 443 only. Read into `host:port` strings: the host in lower case, an IPv6 address in
 * brackets (`[fd00::1]:8443`; a bare IPv6 address may be written without them).
 */
const hostList =
  (name: string): Setting<readonly string[]> =>
  (env) =>
    Object.freeze(
      list(value(env, name)).flatMap((entry) => {
        const e = entry.toLowerCase();
        const refuse = () =>
          new ConfigError(name, `each entry must be a host name or an IP address, optionally with :port or :* (no scheme or path), got "${e}"`);
        const split = isIP(e) === 6 ? [e, `[${e}]`] : /^(.+?)(?::(\*|\d{1,5}))?$/.exec(e);
        if (split === null) throw refuse();
        const [, h, port] = split;
        let host = '';
        try {
          const url = new URL(`http://${h}/`);
          if (url.port === '' && url.pathname === '/' && url.username === '') host = url.hostname;
        } catch {}
        if (host === '' || host !== h) throw refuse();
        if (port === undefined) return [`${host}:80`, `${host}:443`];
        if (port !== '*' && !(Number(port) >= 1 && Number(port) <= 65535)) throw new ConfigError(name, `a port must be between 1 and 65535, got "${e}"`);
        return [`${host}:${port}`];
      }),
    );

/** The certificates of a PEM file, read once at start; none when unset. */
const pemFile =
  (name: string): Setting<readonly string[]> =>
  (env) => {
    const path = value(env, name);
    if (path === undefined) return Object.freeze([]);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new ConfigError(name, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
    }
    const certificates = text.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
    if (certificates.length === 0) throw new ConfigError(name, `${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    return Object.freeze(certificates);
  };

/** The text of a file read once at start; `fallback` when unset. */
const textFile =
  (name: string, fallback: string): Setting<string> =>
  (env) => {
    const path = value(env, name);
    if (path === undefined) return fallback;
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      throw new ConfigError(name, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
    }
  };

/** The health disclosure a bill of sale prints when the operator gives none (SALE_DISCLOSURE_FILE). */
export const DEFAULT_SALE_DISCLOSURE =
  'The seller states that, to the best of its knowledge, the animal is in good health and shows no sign of contagious or infectious disease on the date of sale. The vaccinations and treatments it received are listed above. The buyer is advised to have the animal examined by a veterinarian of their choice within 14 days.';

/**
 * 32-byte keys in base64, comma-separated: in `name` itself, or in the file `name`_FILE names (a
 * mounted secret outside the data folder; surrounding whitespace ignored). Not both.
 */
const secretKeys =
  (name: string): Setting<readonly Buffer[]> =>
  (env) => {
    const file = value(env, `${name}_FILE`);
    let raw = value(env, name);
    if (file !== undefined) {
      if (raw !== undefined) throw new ConfigError(`${name}_FILE`, `set ${name} or ${name}_FILE, not both`);
      try {
        raw = readFileSync(file, 'utf8').trim();
      } catch (err) {
        throw new ConfigError(`${name}_FILE`, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
      }
      if (raw === '') throw new ConfigError(`${name}_FILE`, `${file} is empty`);
    }
    if (raw === undefined) return Object.freeze([]);
    return Object.freeze(
      raw.split(',').map((k) => {
        const key = Buffer.from(k.trim(), 'base64');
        if (key.length !== 32 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(k.trim())) {
          throw new ConfigError(
            file === undefined ? name : `${name}_FILE`,
            'each key must be 32 random bytes in base64 (`openssl rand -base64 32`); separate several with commas, the first encrypts',
          );
        }
        return key;
      }),
    );
  };

/** An ISO 4217 currency code that Intl knows (upper case). */
const currencyCode =
  (name: string, fallback: string): Setting<string> =>
  (env) => {
    const raw = value(env, name) ?? fallback;
    if (!/^[A-Z]{3}$/.test(raw) || !Intl.supportedValuesOf('currency').includes(raw)) {
      throw new ConfigError(name, `expected an ISO 4217 currency code in upper case such as EUR or USD, got "${raw}"`);
    }
    return raw;
  };

/** RECORD_REQUIRED_FIELDS: members of the animal's record, comma-separated; `none` for none. */
const recordFields =
  (name: string, fallback: readonly RecordField[]): Setting<readonly RecordField[]> =>
  (env) => {
    const raw = value(env, name);
    if (raw === undefined) return Object.freeze([...fallback]);
    if (raw === 'none') return Object.freeze([]);
    const fields = list(raw);
    for (const f of fields) {
      if (!(RECORD_FIELDS as readonly string[]).includes(f))
        throw new ConfigError(name, `each entry must be one of ${RECORD_FIELDS.join(', ')} (or the whole value none), got "${f}"`);
    }
    return Object.freeze(RECORD_FIELDS.filter((f) => fields.includes(f)));
  };

const requestTimeoutMs = integer('REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);

/** Node refuses a header deadline later than the whole-request deadline. */
const headersTimeoutMs: Setting<number> = (env) => {
  const headers = integer('HEADERS_TIMEOUT_MS', 10_000, 100, 600_000)(env);
  const request = requestTimeoutMs(env);
  if (headers > request) throw new ConfigError('HEADERS_TIMEOUT_MS', `must not exceed REQUEST_TIMEOUT_MS (${request}), got ${headers}`);
  return headers;
};

/** Every setting (README.md, "Configuration", documents each variable). */
const SETTINGS = {
  port: integer('PORT', 8080, 0, 65535),
  host: text('HOST', '127.0.0.1'),
  // DATABASE_STATEMENT_TIMEOUT_MS (PostgreSQL) also bounds how long one stuck write holds back the
  // event feed (docs/events.md, "Order and its cost").
  database: database('DATABASE_URL', integer('DATABASE_POOL_SIZE', 10, 1, 1000), integer('DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 100, 600_000)),
  bootstrapApiKeys: apiKeys('PETSTORE_API_KEYS'),
  /** '' → relative links; otherwise absolute, ending in /v1, no trailing slash. */
  publicBaseUrl: baseUrl('PUBLIC_BASE_URL'),
  stagingBaseUrl: baseUrl('STAGING_BASE_URL'),
  logLevel: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  production: (env: Env) => value(env, 'NODE_ENV') === 'production',
  bodyLimitBytes: integer('BODY_LIMIT_BYTES', 64 * 1024, 1024, 100 * 1024 * 1024),
  /** The largest photo upload, in bytes (docs/api.md, "Photos"). */
  photoMaxBytes: integer('PHOTO_MAX_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
  /** The largest import file, in bytes (docs/api.md, "Imports"): it is streamed, never held whole. */
  importMaxBytes: integer('IMPORT_MAX_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  /** The most pixels a photo upload may decode to, every frame counted: the decompression-bomb limit. */
  photoMaxPixels: integer('PHOTO_MAX_PIXELS', 40_000_000, 10_000, 268_402_689),
  /** Uploads decoded at once per instance; one more is refused (503) rather than queued. */
  photoConcurrency: integer('PHOTO_CONCURRENCY', 2, 1, 1_000),
  /** Milliseconds of image work (decoding and re-encoding uploads) one key tree may use per minute; 0 disables. */
  photoBudgetMsPerMinute: integer('PHOTO_BUDGET_MS_PER_MINUTE', 20_000, 0, 3_600_000),
  /** Separate port for /metrics, /healthz, /readyz; undefined → served on the main port. */
  metricsPort: optionalInteger('METRICS_PORT', 0, 65535),
  shutdownTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
  /** Origins allowed by CORS; empty → CORS off. ['*'] → any origin. */
  corsOrigins: origins('CORS_ORIGINS'),
  /** Requests per minute per API key; 0 disables. */
  rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
  /** Live keys one key tree may hold (keys/key.rules.ts, treeRoot); one more → 409 key_limit_reached. */
  keysMaxPerTree: integer('KEYS_MAX_PER_TREE', 100, 1, 1_000_000),
  /** Failed authentications per minute per client address; 0 disables. */
  authFailureLimitPerMinute: integer('AUTH_FAILURE_LIMIT_PER_MINUTE', 60, 0, 1_000_000),
  /** Shared rate-limit state; '' → per instance. */
  redisUrl: redisUrl('REDIS_URL'),
  /**
   * Which proxies in front may name the client (X-Forwarded-For): false → none, the TCP peer is
   * the client; a number → that many hops; a list → addresses, CIDR ranges or proxy-addr's
   * `loopback`, `linklocal`, `uniquelocal` (http/edge/client-address.ts hands each to Fastify).
   */
  trustProxy: trustProxy('TRUST_PROXY'),
  headersTimeoutMs,
  requestTimeoutMs,
  keepAliveTimeoutMs: integer('KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
  /** The currency prices are set in (ISO 4217); a price keeps the currency it was set in. */
  storeCurrency: currencyCode('STORE_CURRENCY', 'EUR'),
  /** Staff sessions (docs/api.md, "Sessions"): ended after this long without a request, and this long after sign-in. */
  sessions: {
    idleMinutes: integer('SESSION_IDLE_MINUTES', 60, 1, 1440),
    maxHours: integer('SESSION_MAX_HOURS', 12, 1, 720),
    /** STAFF_REQUIRE_PASSKEY: owners and managers who have a passkey must sign in with it (docs/api.md, "Passkeys"). */
    requirePasskey: flag('STAFF_REQUIRE_PASSKEY'),
  },
  /** What a bill of sale prints about the store (docs/api.md, "Bill of sale"). */
  store: {
    name: text('STORE_NAME', 'Pet Store'),
    address: text('STORE_ADDRESS', ''),
    licence: text('STORE_LICENCE', ''),
    disclosure: textFile('SALE_DISCLOSURE_FILE', DEFAULT_SALE_DISCLOSURE),
  },
  /** What every animal's record must hold to be complete (docs/api.md, "The animal's record"). */
  record: {
    requiredFields: recordFields('RECORD_REQUIRED_FIELDS', RECORD_REQUIRED_DEFAULT),
    /** Adds microchip to the required fields. */
    requiresMicrochip: flag('RECORD_REQUIRES_MICROCHIP'),
    /** Refuse to deliver an order for an animal whose record is incomplete (409 record_incomplete). */
    enforceOnSale: flag('RECORD_ENFORCE_ON_SALE'),
  },
  /** Events (and delivery log entries) older than this are purged. */
  eventRetentionDays: integer('EVENT_RETENTION_DAYS', 30, 1, 3650),
  /** Activity log entries (who did what) older than this are purged; never before EVENT_RETENTION_DAYS (activityRetentionJob). */
  activityRetentionDays: integer('ACTIVITY_RETENTION_DAYS', 730, 1, 36500),
  /** How long a sale record keeps an erased buyer's name and address after the sale (docs/api.md, "Customers"). */
  saleRecordRetentionDays: integer('SALE_RECORD_RETENTION_DAYS', 730, 1, 36500),
  /** How webhooks are delivered (docs/events.md). */
  webhooks: {
    /** An attempt succeeds only with a 2xx within this. */
    timeoutMs: integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    /** Delay before each attempt, the first (always 0: at once) included; its length is the number of attempts. */
    retryScheduleMs: retrySchedule('WEBHOOK_RETRY_SCHEDULE_MS', Object.freeze([0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000])),
    /** An endpoint whose deliveries all failed for this long is disabled. */
    disableAfterHours: integer('WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 8760),
    /** Attempts in flight at once, per instance. */
    concurrency: integer('WEBHOOK_CONCURRENCY', 16, 1, 1000),
    /** Attempts in flight at once to one endpoint, across every instance. */
    endpointConcurrency: integer('WEBHOOK_ENDPOINT_CONCURRENCY', 1, 1, 100),
    /** Attempts in flight at once to one destination (host and port), across every instance (docs/events.md). */
    hostConcurrency: integer('WEBHOOK_HOST_CONCURRENCY', 4, 1, 1000),
    /** Endpoints a store may register; more → 409 webhook_limit_reached. */
    maxEndpoints: integer('WEBHOOK_MAX_ENDPOINTS', 16, 1, 10_000),
    /** PEM certificates of CAs deliveries trust besides Node's (NODE_EXTRA_CA_CERTS included); none when unset. */
    caCertificates: pemFile('WEBHOOK_CA_FILE'),
    /** Accept http: URLs (development only). */
    allowHttp: flag('WEBHOOK_ALLOW_HTTP'),
    /** Host names and addresses exempt from the public-address rule (lower case, IPv6 without brackets). */
    allowedHosts: hostList('WEBHOOK_ALLOWED_HOSTS'),
    /** Keys that encrypt stored signing secrets: the first encrypts, all decrypt; empty → a key kept in the database. */
    secretKeys: secretKeys('WEBHOOK_SECRET_KEY'),
  },
};

/** What a table of settings reads into: each setting's value, groups as nested objects. */
type Read<S> = S extends Setting<infer T> ? T : { readonly [K in keyof S]: Read<S[K]> };

export type Config = Read<typeof SETTINGS>;
export type DatabaseConfig = Config['database'];
export type WebhookSettings = Config['webhooks'];
export type LogLevel = Config['logLevel'];

function read<S extends object>(settings: S, env: Env): Read<S> {
  const entries = Object.entries(settings).map(([key, setting]) => [key, typeof setting === 'function' ? setting(env) : read(setting, env)]);
  return Object.freeze(Object.fromEntries(entries)) as Read<S>;
}

export function loadConfig(env: Env): Config {
  return read(SETTINGS, env);
}
