import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Storage } from '../storage/storage.ts';

export type Limiter = 'key' | 'auth_failure';

/**
 * The service's Prometheus metrics, in a registry of its own (not prom-client's global one) so
 * that every app — and every test — counts separately. With METRICS_PORT, main.ts hands the same
 * instance to the main app (which counts) and the ops app (which serves /metrics).
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route' | 'status'>;
  readonly rateLimited: Counter<'limiter'>;

  constructor(storage: Storage, { processMetrics = true }: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by route pattern and status', labelNames: ['method', 'route', 'status'], registers });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request received to response sent, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
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

  /**
   * The observation function of one route pattern: each (method, status) pair's label set and
   * bound counter and histogram are made once and reused, not rebuilt for every request.
   */
  observer(route: string): (method: string, status: number, seconds: number) => void {
    const series = new Map<string, { count: { inc(): void }; time: { observe(seconds: number): void } }>();
    return (method, status, seconds) => {
      const key = method + status;
      let s = series.get(key);
      if (s === undefined) {
        const labels = { method, route, status: String(status) };
        s = { count: this.requests.labels(labels), time: this.duration.labels(labels) };
        series.set(key, s);
      }
      s.count.inc();
      s.time.observe(seconds);
    };
  }
}
