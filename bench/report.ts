// Turns measured rounds into the tables `npm run bench` prints.
import type { LoadResult } from './load.ts';
import type { Scenario } from './scenarios.ts';

export interface Measured {
  readonly round: number;
  /** 'baseline', 'service', or the label of a --compare checkout. */
  readonly target: string;
  /**
   * --paired: the target this run was loaded together with (a baseline run names its partner; a
   * target's run names itself). Ratios pair each run with the baseline run of the same round and
   * partner; without --paired there is none and a round's one baseline run serves every target.
   */
  readonly partner?: string;
  readonly result: LoadResult;
  readonly reqPerSec: number;
  readonly errors: number;
  /** Services only: highest VmRSS sampled during the run, and RSS once it ended (bytes). */
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

export interface TargetSummary {
  readonly target: string;
  readonly reqPerSec: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly errors: number;
  /** Median of the per-round ratios to the baseline (each round ran all targets back to back, or each at once with the baseline: --paired). */
  readonly ratio: number;
  readonly ratioRange: [number, number];
  readonly p99Ratio: number;
  readonly peakRss: number;
  readonly rssAfterRounds: number[];
}

export interface Summary {
  readonly name: string;
  readonly title: string;
  readonly expect: number;
  /** baseline first, then the service, then any --compare checkouts. */
  readonly targets: TargetSummary[];
}

export function summarise({ scenario, runs }: ScenarioReport, targets: readonly string[]): Summary {
  const base = runs.filter((r) => r.target === 'baseline');
  const baseP99 = median(base.map((r) => r.result.p99Us));
  return {
    name: scenario.name,
    title: scenario.title,
    expect: scenario.expect,
    targets: targets.map((target) => {
      const rs = runs.filter((r) => r.target === target);
      const ratios = rs.map((r) => r.reqPerSec / (base.find((b) => b.round === r.round && b.partner === r.partner)?.reqPerSec ?? NaN));
      const p99Us = median(rs.map((r) => r.result.p99Us));
      return {
        target,
        reqPerSec: median(rs.map((r) => r.reqPerSec)),
        p50Us: median(rs.map((r) => r.result.p50Us)),
        p99Us,
        errors: rs.reduce((n, r) => n + r.errors, 0),
        ratio: median(ratios),
        ratioRange: [Math.min(...ratios), Math.max(...ratios)],
        p99Ratio: p99Us / baseP99,
        peakRss: Math.max(0, ...rs.map((r) => r.peakRss ?? 0)),
        rssAfterRounds: rs.map((r) => r.rssAfter ?? 0),
      };
    }),
  };
}

const range = (t: TargetSummary) => (t.ratioRange[0] === t.ratioRange[1] ? t.ratio.toFixed(2) : `${t.ratio.toFixed(2)} (${t.ratioRange[0].toFixed(2)}–${t.ratioRange[1].toFixed(2)})`);

export function scenarioTable(s: Summary): string {
  const rows = [
    ['', 'req/s', 'p50', 'p99', 'errors', 'ratio', 'p99 ratio', 'peak RSS'],
    ...s.targets.map((t) =>
      t.target === 'baseline'
        ? [t.target, num(t.reqPerSec), ms(t.p50Us), ms(t.p99Us), String(t.errors), '1.00', '1.00', '']
        : [t.target, num(t.reqPerSec), ms(t.p50Us), ms(t.p99Us), String(t.errors), range(t), t.p99Ratio.toFixed(2), mib(t.peakRss)],
    ),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const lines = rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  return [
    `${s.name}: ${s.title} (expect ${s.expect}; medians over rounds, ratio = target/baseline per round)`,
    ...lines.map((l) => `  ${l}`),
    ...s.targets.filter((t) => t.target !== 'baseline').map((t) => `  ${t.target} RSS after each round: ${t.rssAfterRounds.map(mib).join(', ')}`),
  ].join('\n');
}

export function markdownTable(summaries: readonly Summary[]): string {
  const head = '| scenario | target | req/s | ratio (range) | p50 | p99 | p99 ratio | errors | peak RSS |';
  const sep = '|---|---|--:|--:|--:|--:|--:|--:|--:|';
  const rows = summaries.flatMap((s) =>
    s.targets.map(
      (t) =>
        `| \`${s.title}\` | ${t.target} | ${num(t.reqPerSec)} | ${t.target === 'baseline' ? '1.00' : range(t)} | ${ms(t.p50Us)} | ${ms(t.p99Us)} | ${t.target === 'baseline' ? '1.00' : t.p99Ratio.toFixed(2)} | ${t.errors} | ${t.target === 'baseline' ? '' : mib(t.peakRss)} |`,
    ),
  );
  return [head, sep, ...rows].join('\n');
}
