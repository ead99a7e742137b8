import type { Registry } from 'prom-client';

type Labels = { readonly method: string; readonly route: string; readonly status: string };

/** One (method, route, status) series: how many requests, their total time, and per bucket. */
interface Series {
  readonly labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly perBucket: Float64Array;
}

/** What prom-client's Registry reads from a metric (the shape its own Counter/Histogram give). */
interface MetricValue {
  readonly labels: Record<string, string | number>;
  readonly value: number;
  readonly metricName?: string;
}

/**
 * The request counter and duration histogram, counted without prom-client on the request path.
 * prom-client hashes the label set and looks up the bucket by a string key on every observation,
 * on every request; here a route's hook owns its series objects and an
 * observation is a map lookup and three additions. The registry reads the series when scraped,
 * through the same metric interface (`get`, `reset`) prom-client's own metrics implement, so the
 * exposition is what prom-client's Counter and Histogram would write.
 */
export class RequestMetrics {
  readonly #bounds: readonly number[];
  readonly #all: Series[] = [];
  readonly #observers = new Map<string, (method: string, status: number, seconds: number) => void>();

  constructor(registry: Registry, counter: { name: string; help: string }, histogram: { name: string; help: string; buckets: readonly number[] }) {
    this.#bounds = [...histogram.buckets].sort((a, b) => a - b);
    const all = this.#all;
    const bounds = this.#bounds;
    registry.registerMetric({
      name: counter.name,
      help: counter.help,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({
        name: counter.name,
        help: counter.help,
        type: 'counter',
        aggregator: 'sum',
        values: all.map((s): MetricValue => ({ labels: s.labels, value: s.count })),
      }),
      reset: () => this.#reset(),
    } as never);
    registry.registerMetric({
      name: histogram.name,
      help: histogram.help,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => {
        const values: MetricValue[] = [];
        for (const s of all) {
          let cumulative = 0;
          for (let i = 0; i < bounds.length; i++) {
            cumulative += s.perBucket[i];
            values.push({ labels: { le: bounds[i], ...s.labels }, value: cumulative, metricName: `${histogram.name}_bucket` });
          }
          values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${histogram.name}_bucket` });
          values.push({ labels: s.labels, value: s.sum, metricName: `${histogram.name}_sum` });
          values.push({ labels: s.labels, value: s.count, metricName: `${histogram.name}_count` });
        }
        return { name: histogram.name, help: histogram.help, type: 'histogram', aggregator: 'sum', values };
      },
      reset: () => this.#reset(),
    } as never);
  }

  #reset(): void {
    for (const s of this.#all) {
      s.count = 0;
      s.sum = 0;
      s.perBucket.fill(0);
    }
  }

  /**
   * The observation function of one route pattern; each (method, status) series is made once.
   * The same function for every caller naming the route (a GET route and the HEAD route Fastify derives from it).
   */
  observer(route: string): (method: string, status: number, seconds: number) => void {
    let observe = this.#observers.get(route);
    if (observe === undefined) {
      observe = this.#observer(route);
      this.#observers.set(route, observe);
    }
    return observe;
  }

  #observer(route: string): (method: string, status: number, seconds: number) => void {
    const bounds = this.#bounds;
    // Keyed by method, then by the status as a number: no key string to build and hash per call.
    const mine = new Map<string, Map<number, Series>>();
    return (method, status, seconds) => {
      let byStatus = mine.get(method);
      if (byStatus === undefined) {
        byStatus = new Map();
        mine.set(method, byStatus);
      }
      let s = byStatus.get(status);
      if (s === undefined) {
        s = { labels: { method, route, status: String(status) }, count: 0, sum: 0, perBucket: new Float64Array(bounds.length + 1) };
        byStatus.set(status, s);
        this.#all.push(s);
      }
      let i = 0;
      while (i < bounds.length && seconds > bounds[i]) i++;
      s.perBucket[i]++;
      s.count++;
      s.sum += seconds;
    };
  }
}
