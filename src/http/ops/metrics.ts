import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric, type MetricValueWithName } from 'prom-client';
import type { AuthMetrics, Limiter } from '../policies/auth.ts';
import type { CounterStats } from '../policies/counter-store.ts';
import { MEMORY_COUNTER_CAPACITY } from '../policies/counter-store.memory.ts';
import { RequestMetrics } from './request-metrics.ts';
import type { Storage } from '../../storage/storage.ts';
import type { AttemptOutcome, DeliveryMetrics } from '../../webhooks/webhook.dispatcher.ts';
import { SERVICE_VERSION } from '../../version.ts';

/**
 * The names the service's own metrics had before they took the `petstore_` prefix and Prometheus'
 * naming conventions (old → new). They are still served, as copies read at scrape time, for one
 * release; docs/operations.md, "Metric names", says when they go. `db_connections{state="total"|"idle"}`
 * is no plain rename (its replacement partitions the connections), so it is kept beside them.
 */
export const LEGACY_NAMES = {
  http_requests_total: 'petstore_http_requests_total',
  http_request_duration_seconds: 'petstore_http_request_duration_seconds',
  http_rate_limited_total: 'petstore_http_rate_limited_total',
  db_waiting_queries: 'petstore_db_waiting_queries',
  auth_failure_addresses: 'petstore_auth_failure_addresses',
  auth_failure_addresses_evicted_total: 'petstore_auth_failure_addresses_evicted_total',
  webhook_deliveries_total: 'petstore_webhook_delivery_attempts_total',
  webhook_attempts_in_flight: 'petstore_webhook_delivery_attempts_in_flight',
  webhook_oldest_pending_seconds: 'petstore_webhook_oldest_pending_seconds',
} as const;

/**
 * The service's Prometheus metrics, in a registry of its own (not prom-client's global one) so
 * that every app — and every test — counts separately. With METRICS_PORT, main.ts hands the same
 * instance to the main app (which counts) and the ops app (which serves /metrics).
 */
export class Metrics implements DeliveryMetrics, AuthMetrics {
  readonly registry = new Registry();
  /** petstore_http_requests_total and petstore_http_request_duration_seconds, by method, route pattern and status. */
  readonly #requests: RequestMetrics;
  readonly #rateLimited: Counter<'limiter'>;
  #failureCounts: (() => CounterStats | undefined) | undefined;
  readonly #webhookAttempts: Counter<'outcome'>;
  readonly #webhookInFlight: Gauge;

  constructor(storage: Storage, { processMetrics = true }: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.#requests = new RequestMetrics(
      this.registry,
      { name: 'petstore_http_requests_total', help: 'HTTP requests answered, by route pattern and status' },
      {
        name: 'petstore_http_request_duration_seconds',
        help: 'Time from request received to response sent, by route pattern and status',
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      },
    );
    this.#rateLimited = new Counter({
      name: 'petstore_http_rate_limited_total',
      help: 'Requests refused with 429, by limiter (key: per API key; auth_failure: per client address)',
      labelNames: ['limiter'],
      registers,
    });
    new Gauge({
      name: 'petstore_build_info',
      help: 'Always 1: the release of this instance, the Node.js that runs it and its storage engine',
      labelNames: ['version', 'nodejs_version', 'engine'],
      registers,
    }).set({ version: SERVICE_VERSION, nodejs_version: process.version, engine: storage.engine }, 1);
    // The states partition the connections: their sum is every connection this instance holds.
    new Gauge({
      name: 'petstore_db_connections',
      help: 'Database connections held by this instance, by state (idle, in_use); SQLite holds one, idle between statements',
      labelNames: ['state'],
      registers,
      collect() {
        const s = storage.stats?.();
        if (!s) return;
        this.set({ state: 'idle' }, s.idle);
        this.set({ state: 'in_use' }, s.connections - s.idle);
      },
    });
    new Gauge({
      name: 'db_connections',
      help: 'Deprecated: use petstore_db_connections (whose states idle and in_use add up to the total). Database connections by state (total, idle)',
      labelNames: ['state'],
      registers,
      collect() {
        const s = storage.stats?.();
        if (!s) return;
        this.set({ state: 'total' }, s.connections);
        this.set({ state: 'idle' }, s.idle);
      },
    });
    new Gauge({
      name: 'petstore_db_waiting_queries',
      help: 'Queries waiting for a free database connection',
      registers,
      collect() {
        const s = storage.stats?.();
        if (s) this.set(s.waiting);
      },
    });
    const failureCounts = () => this.#failureCounts?.();
    new Gauge({
      name: 'petstore_auth_failure_addresses',
      help: `Client addresses (IPv4, IPv6 /64) the failed-authentication limit counts in this window on this instance; at most ${MEMORY_COUNTER_CAPACITY}`,
      registers,
      collect() {
        const s = failureCounts();
        if (s) this.set(s.size);
      },
    });
    let evictedSeen = 0;
    new Counter({
      name: 'petstore_auth_failure_addresses_evicted_total',
      help: `Least-counted client addresses the failed-authentication limit forgot because it counted ${MEMORY_COUNTER_CAPACITY} in one window`,
      registers,
      collect() {
        const s = failureCounts();
        if (s && s.evicted > evictedSeen) {
          this.inc(s.evicted - evictedSeen);
          evictedSeen = s.evicted;
        }
      },
    });
    this.#webhookAttempts = new Counter({
      name: 'petstore_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts made by this instance, by outcome (succeeded; retrying: failed, a retry follows; failed: failed for good)',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['succeeded', 'retrying', 'failed']) this.#webhookAttempts.inc({ outcome }, 0);
    this.#webhookInFlight = new Gauge({
      name: 'petstore_webhook_delivery_attempts_in_flight',
      help: 'Webhook delivery attempts this instance is making right now',
      registers,
    });
    new Gauge({
      name: 'petstore_webhook_oldest_pending_seconds',
      help: 'Age of the oldest event still waiting for a delivery to an enabled endpoint (0 when none waits): how far behind webhook delivery is',
      registers,
      async collect() {
        // /metrics must answer while the database does not (that is when it is read most): the
        // gauge then keeps its last value, and /readyz and the petstore_db_* gauges tell what is wrong.
        const oldest = await Promise.resolve()
          .then(() => storage.webhooks.oldestPending())
          .catch(() => null);
        if (oldest !== null) this.set(oldest === undefined ? 0 : Math.max(0, (Date.now() - Date.parse(oldest)) / 1000));
      },
    });
    for (const [legacy, current] of Object.entries(LEGACY_NAMES)) this.registry.registerMetric(legacyCopy(this.registry.getSingleMetric(current)!, legacy));
    // process_* and nodejs_* keep prom-client's names: they are the same in every Node.js service.
    if (processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** Where the failed-authentication limiter's counts are read from (the in-memory store only). */
  watchFailureCounts(stats: () => CounterStats | undefined): void {
    this.#failureCounts = stats;
  }

  rateLimited(limiter: Limiter): void {
    this.#rateLimited.inc({ limiter });
  }

  attempted(outcome: AttemptOutcome): void {
    this.#webhookAttempts.inc({ outcome });
  }

  inFlight(count: number): void {
    this.#webhookInFlight.set(count);
  }

  /** The observation function of one route pattern (see RequestMetrics). */
  observer(route: string): (method: string, status: number, seconds: number) => void {
    return this.#requests.observer(route);
  }
}

/** `metric`'s series under an old name, read from it at every scrape (nothing is counted twice). */
function legacyCopy(metric: Metric, name: string): Metric {
  const current = (metric as unknown as { name: string }).name;
  const rename = (n: string) => name + n.slice(current.length);
  return {
    name,
    get: async () => {
      const m = await metric.get();
      return {
        ...m,
        name,
        help: `Deprecated: use ${current}. ${m.help}`,
        // A histogram's series carry their own names (`…_bucket`, `…_sum`, `…_count`).
        values: (m.values as MetricValueWithName<string>[]).map((v) => (v.metricName === undefined ? v : { ...v, metricName: rename(v.metricName) })),
      };
    },
    reset: () => undefined,
  } as unknown as Metric;
}
