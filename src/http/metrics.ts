import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { RequestMetrics } from './request-metrics.ts';
import type { Storage } from '../storage/storage.ts';

export type Limiter = 'key' | 'auth_failure';

/**
 * The service's Prometheus metrics, in a registry of its own (not prom-client's global one) so
 * that every app — and every test — counts separately. With METRICS_PORT, main.ts hands the same
 * instance to the main app (which counts) and the ops app (which serves /metrics).
 */
export class Metrics {
  readonly registry = new Registry();
  /** http_requests_total and http_request_duration_seconds, by method, route pattern and status. */
  readonly #requests: RequestMetrics;
  readonly rateLimited: Counter<'limiter'>;

  constructor(storage: Storage, { processMetrics = true }: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.#requests = new RequestMetrics(
      this.registry,
      { name: 'http_requests_total', help: 'HTTP requests answered, by route pattern and status' },
      {
        name: 'http_request_duration_seconds',
        help: 'Time from request received to response sent, by route pattern and status',
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      },
    );
    this.rateLimited = new Counter({ name: 'http_rate_limited_total', help: 'Requests refused with 429, by limiter (key: per API key; auth_failure: per client address)', labelNames: ['limiter'], registers });
    new Gauge({
      name: 'db_connections',
      help: 'Database connections held by this instance, by state (total, idle); SQLite holds one',
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
      name: 'db_waiting_queries',
      help: 'Queries waiting for a free database connection',
      registers,
      collect() {
        const s = storage.stats?.();
        if (s) this.set(s.waiting);
      },
    });
    if (processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** The observation function of one route pattern (see RequestMetrics). */
  observer(route: string): (method: string, status: number, seconds: number) => void {
    return this.#requests.observer(route);
  }
}
