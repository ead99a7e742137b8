// Turns measured rounds into the tables `npm run bench` prints.
import type { LoadResult } from './load.ts';
import type { Scenario } from './scenarios.ts';

export interface Measured {
  readonly round: number;
  readonly target: 'baseline' | 'service';
  readonly result: LoadResult;
  readonly reqPerSec: number;
  readonly errors: number;
  /** Service only: highest VmRSS sampled during the run, and RSS once it ended (bytes). */
  readonly peakRss?: number;
  readonly rssAfter?: number;
}

export interface ScenarioReport {
  readonly scenario: Scenario;
  readonly runs: Measured[];
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
const ms = (us: number) => (us >= 10_000 ? `${(us / 1000).toFixed(0)} ms` : us >= 1000 ? `${(us / 1000).toFixed(1)} ms` : `${(us / 1000).toFixed(2)} ms`);
const num = (n: number) => Math.round(n).toLocaleString('en');

export interface Summary {
  readonly name: string;
  readonly title: string;
  readonly baseline: { reqPerSec: number; p50Us: number; p99Us: number; errors: number };
  readonly service: { reqPerSec: number; p50Us: number; p99Us: number; errors: number; peakRss: number; rssAfterRounds: number[] };
  /** Median of the per-round ratios (each round's service and baseline ran back to back). */
  readonly ratio: number;
  readonly ratioRange: [number, number];
  readonly p99Ratio: number;
}

export function summarise({ scenario, runs }: ScenarioReport): Summary {
  const of = (target: Measured['target']) => runs.filter((r) => r.target === target);
  const agg = (rs: Measured[]) => ({
    reqPerSec: median(rs.map((r) => r.reqPerSec)),
    p50Us: median(rs.map((r) => r.result.p50Us)),
    p99Us: median(rs.map((r) => r.result.p99Us)),
    errors: rs.reduce((n, r) => n + r.errors, 0),
  });
  const base = of('baseline');
  const svc = of('service');
  const ratios = svc.map((s) => s.reqPerSec / (base.find((b) => b.round === s.round)?.reqPerSec ?? NaN));
  const b = agg(base);
  const s = agg(svc);
  return {
    name: scenario.name,
    title: scenario.title,
    baseline: b,
    service: { ...s, peakRss: Math.max(...svc.map((r) => r.peakRss ?? 0)), rssAfterRounds: svc.map((r) => r.rssAfter ?? 0) },
    ratio: median(ratios),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    p99Ratio: s.p99Us / b.p99Us,
  };
}

export function scenarioTable(s: Summary, expect: number): string {
  const rows = [
    ['', 'req/s', 'p50', 'p99', 'errors', 'ratio', 'p99 ratio', 'peak RSS'],
    ['baseline', num(s.baseline.reqPerSec), ms(s.baseline.p50Us), ms(s.baseline.p99Us), String(s.baseline.errors), '1.00', '1.00', ''],
    [
      'service',
      num(s.service.reqPerSec),
      ms(s.service.p50Us),
      ms(s.service.p99Us),
      String(s.service.errors),
      `${s.ratio.toFixed(2)} (${s.ratioRange[0].toFixed(2)}–${s.ratioRange[1].toFixed(2)})`,
      s.p99Ratio.toFixed(2),
      mib(s.service.peakRss),
    ],
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const lines = rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  return [
    `${s.name}: ${s.title} (expect ${expect}; medians over rounds, ratio = service/baseline per round)`,
    ...lines.map((l) => `  ${l}`),
    `  service RSS after each round: ${s.service.rssAfterRounds.map(mib).join(', ')}`,
  ].join('\n');
}

export function markdownTable(summaries: readonly Summary[]): string {
  const head = '| scenario | baseline req/s | service req/s | ratio (range) | p50 base / service | p99 base / service | p99 ratio | errors | peak RSS |';
  const sep = '|---|--:|--:|--:|--:|--:|--:|--:|--:|';
  const rows = summaries.map(
    (s) =>
      `| \`${s.title}\` | ${num(s.baseline.reqPerSec)} | ${num(s.service.reqPerSec)} | ${s.ratio.toFixed(2)} (${s.ratioRange[0].toFixed(2)}–${s.ratioRange[1].toFixed(2)}) | ${ms(s.baseline.p50Us)} / ${ms(s.service.p50Us)} | ${ms(s.baseline.p99Us)} / ${ms(s.service.p99Us)} | ${s.p99Ratio.toFixed(2)} | ${s.baseline.errors + s.service.errors} | ${mib(s.service.peakRss)} |`,
  );
  return [head, sep, ...rows].join('\n');
}
