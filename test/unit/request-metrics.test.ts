import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { RequestMetrics } from '../../src/http/ops/request-metrics.ts';

const COUNTER = { name: 'http_requests_total', help: 'requests' };
const HISTOGRAM = { name: 'http_request_duration_seconds', help: 'durations', buckets: [0.001, 0.01, 0.1, 1] };

// Observations on both sides of every bound, exactly on bounds, and above the last.
const OBSERVATIONS: [method: string, route: string, status: number, seconds: number][] = [
  ['GET', '/v1/pets', 200, 0.0004],
  ['GET', '/v1/pets', 200, 0.001],
  ['GET', '/v1/pets', 200, 0.02],
  ['GET', '/v1/pets', 401, 0.0002],
  ['POST', '/v1/pets', 201, 0.5],
  ['GET', '/v1/pets/:petId', 404, 3],
  ['GET', 'unmatched', 404, 0.1],
];

test('RequestMetrics exposes exactly what prom-client Counter and Histogram would', async () => {
  const reference = new Registry();
  const counter = new Counter({ ...COUNTER, labelNames: ['method', 'route', 'status'], registers: [reference] });
  const histogram = new Histogram({ ...HISTOGRAM, labelNames: ['method', 'route', 'status'], registers: [reference] });
  const registry = new Registry();
  const metrics = new RequestMetrics(registry, COUNTER, HISTOGRAM);
  const observers = new Map<string, ReturnType<RequestMetrics['observer']>>();
  for (const [method, route, status, seconds] of OBSERVATIONS) {
    const labels = { method, route, status: String(status) };
    counter.inc(labels);
    histogram.observe(labels, seconds);
    if (!observers.has(route)) observers.set(route, metrics.observer(route));
    observers.get(route)!(method, status, seconds);
  }
  const expected = await reference.metrics();
  assert.match(expected, /http_request_duration_seconds_bucket\{le="0.001",method="GET",route="\/v1\/pets",status="200"\} 2/);
  assert.equal(await registry.metrics(), expected);
  // As JSON too, but for exemplars: prom-client's values carry an empty `exemplar` (only
  // OpenMetrics uses them, and this service enables none).
  const json = async (r: Registry) => JSON.parse(JSON.stringify(await r.getMetricsAsJSON(), (k, v) => (k === 'exemplar' ? undefined : v)));
  assert.deepEqual(await json(registry), await json(reference));

  reference.resetMetrics();
  registry.resetMetrics();
  observers.get('/v1/pets')!('GET', 200, 0.05);
  histogram.observe({ method: 'GET', route: '/v1/pets', status: '200' }, 0.05);
  counter.inc({ method: 'GET', route: '/v1/pets', status: '200' });
  const afterReset = await registry.metrics();
  assert.match(afterReset, /^http_requests_total\{method="GET",route="\/v1\/pets",status="200"\} 1$/m);
  assert.match(afterReset, /^http_request_duration_seconds_sum\{method="GET",route="\/v1\/pets",status="200"\} 0.05$/m);
});
