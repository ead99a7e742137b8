// Turns measured rounds into the tables `npm run bench` prints. The figure of merit is the
// server's CPU time per request, as a ratio to the baseline's; throughput ratios are shown too,
// marked where the baseline's core was not saturated (then they measure the load generator).
import type { LoadResult } from './load.ts';
import type { Scenario } from './scenarios.ts';
import { PEAK_RSS_LIMIT, atMost, rssGrowth, type Goal } from './targets.ts';

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
  /** Highest VmRSS sampled during the run, and RSS once it ended (bytes). */
  readonly peakRss?: number;
  readonly rssAfter?: number;
  /** CPU time the server process used over the run, µs (bench/proc.ts); absent without /proc. */
  readonly cpu?: { readonly statUs: number; readonly schedUs?: number };
  /** Busy share (0–1) of the server's core and of the load generator's over the run; absent when not pinned. */
  readonly cores?: { readonly server: number; readonly load: number };
  /** Wall time between the samples of `cpu` and `cores`, µs. */
  readonly wallUs?: number;
}

export interface ScenarioReport {
  readonly scenario: Scenario;
  readonly runs: Measured[];
}

/** Below this share of the run on CPU (its core's, and its own), the baseline did not set its own pace. */
export const SERVER_BOUND_BUSY = 0.9;

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median and min–max of the finite values; undefined when there are none. */
export function spread(xs: readonly number[]): Spread | undefined {
  const known = xs.filter(Number.isFinite);
  if (known.length === 0) return undefined;
  return { median: median(known), min: Math.min(...known), max: Math.max(...known) };
}

/**
 * CPU µs the server spent per request served in one run: Δcpu / requests. schedstat when every
 * thread's was read (nanosecond grain), else utime + stime (clock ticks); NaN without /proc.
 */
export function cpuPerRequest(run: Measured, source: 'best' | 'stat' = 'best'): number {
  if (run.cpu === undefined || run.result.requests <= 0) return NaN;
  const us = source === 'best' ? (run.cpu.schedUs ?? run.cpu.statUs) : run.cpu.statUs;
  return us / run.result.requests;
}

/** Share of the run's wall time the server process spent on CPU (schedstat, else utime + stime); NaN if unknown. */
export function ownShare(run: Measured): number {
  if (run.cpu === undefined || run.wallUs === undefined || !(run.wallUs > 0)) return NaN;
  return (run.cpu.schedUs ?? run.cpu.statUs) / run.wallUs;
}

/**
 * Whether a throughput ratio against this baseline run compares servers, i.e. the baseline set
 * its own pace: its core at least SERVER_BOUND_BUSY busy (the rule), and that busy time
 * its own — the baseline process on CPU at least SERVER_BOUND_BUSY of the run, since a core kept
 * busy by another tenant is not the baseline's pace. With --paired the core is shared by design,
 * so the baseline and the partner loaded beside it count together. undefined when core load was
 * not measured.
 */
export function serverBound(baselineRun: Measured, pairedWith?: Measured): boolean | undefined {
  if (baselineRun.cores === undefined) return undefined;
  if (baselineRun.cores.server < SERVER_BOUND_BUSY) return false;
  const own = ownShare(baselineRun) + (pairedWith === undefined ? 0 : ownShare(pairedWith));
  return Number.isNaN(own) || own >= SERVER_BOUND_BUSY;
}

export interface TargetSummary {
  readonly target: string;
  readonly rounds: number;
  /** Medians and spreads over rounds. Ratios are per round: this target's run ÷ its baseline run. */
  readonly cpuUsPerRequest?: Spread;
  readonly statUsPerRequest?: Spread;
  readonly cpuRatio?: Spread;
  readonly reqPerSec: number;
  readonly ratio: Spread;
  /** Rounds whose baseline was not server-bound (serverBound): their throughput ratio measured something else. */
  readonly notServerBound: number;
  /** In each round this target was compared in: the baseline core's busy share, and the baseline process's own share of the run on CPU. */
  readonly baselineBusy: number[];
  readonly baselineOwnShare: number[];
  readonly p50Us: number;
  readonly p99Us: number;
  readonly p99Ratio: Spread;
  readonly errors: number;
  readonly serverBusy?: Spread;
  readonly loadBusy?: Spread;
  readonly peakRss: number;
  readonly rssAfterRounds: number[];
  /** The limits for this scenario, when they apply to this target (a service, not a reference server). */
  readonly goal?: Goal;
}

export interface Summary {
  readonly name: string;
  readonly title: string;
  readonly expect: number;
  /** How CPU µs/req was read: 'schedstat' when every run had it, else 'utime+stime'; undefined without /proc. */
  readonly cpuSource?: 'schedstat' | 'utime+stime';
  /** baseline first, then the service, then any --compare checkouts and reference servers. */
  readonly targets: TargetSummary[];
}

export interface SummaryOptions {
  /** The limits for this scenario, if they apply to this run. */
  readonly goal?: Goal;
  /** Targets the goal is judged for (the services); reference servers are not. */
  readonly judged?: readonly string[];
}

export function summarise({ scenario, runs }: ScenarioReport, targets: readonly string[], options: SummaryOptions = {}): Summary {
  const base = runs.filter((r) => r.target === 'baseline');
  const withCpu = runs.filter((r) => r.cpu !== undefined);
  const cpuSource = withCpu.length === 0 ? undefined : withCpu.every((r) => r.cpu!.schedUs !== undefined) ? 'schedstat' : 'utime+stime';
  return {
    name: scenario.name,
    title: scenario.title,
    expect: scenario.expect,
    cpuSource,
    targets: targets.map((target): TargetSummary => {
      const rs = runs.filter((r) => r.target === target);
      const pairs = rs.map((r) => ({ run: r, base: base.find((b) => b.round === r.round && b.partner === r.partner) }));
      const per = (f: (run: Measured, base: Measured) => number) => pairs.map(({ run, base }) => (base ? f(run, base) : NaN));
      const cpu = (run: Measured) => cpuPerRequest(run, cpuSource === 'schedstat' ? 'best' : 'stat');
      const bounds = pairs.map(({ run, base }) => (base ? serverBound(base, run.partner !== undefined && run !== base ? run : undefined) : undefined));
      const judged = options.goal !== undefined && (options.judged ?? []).includes(target);
      return {
        target,
        rounds: rs.length,
        cpuUsPerRequest: spread(rs.map(cpu)),
        statUsPerRequest: spread(rs.map((r) => cpuPerRequest(r, 'stat'))),
        cpuRatio: spread(per((r, b) => cpu(r) / cpu(b))),
        reqPerSec: median(rs.map((r) => r.reqPerSec)),
        ratio: spread(per((r, b) => r.reqPerSec / b.reqPerSec)) ?? { median: NaN, min: NaN, max: NaN },
        notServerBound: bounds.filter((b) => b === false).length,
        baselineBusy: pairs.map(({ base }) => base?.cores?.server ?? NaN),
        baselineOwnShare: pairs.map(({ base }) => (base ? ownShare(base) : NaN)),
        p50Us: median(rs.map((r) => r.result.p50Us)),
        p99Us: median(rs.map((r) => r.result.p99Us)),
        p99Ratio: spread(per((r, b) => r.result.p99Us / b.result.p99Us)) ?? { median: NaN, min: NaN, max: NaN },
        errors: rs.reduce((n, r) => n + r.errors, 0),
        serverBusy: spread(rs.map((r) => r.cores?.server ?? NaN)),
        loadBusy: spread(rs.map((r) => r.cores?.load ?? NaN)),
        peakRss: Math.max(0, ...rs.map((r) => r.peakRss ?? 0)),
        rssAfterRounds: rs.map((r) => r.rssAfter ?? 0),
        ...(judged ? { goal: options.goal } : {}),
      };
    }),
  };
}

const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
const ms = (us: number) => (us >= 10_000 ? `${(us / 1000).toFixed(0)} ms` : us >= 1000 ? `${(us / 1000).toFixed(1)} ms` : `${(us / 1000).toFixed(2)} ms`);
const num = (n: number) => Math.round(n).toLocaleString('en');
const pct = (share: number) => (Number.isFinite(share) ? `${Math.round(share * 100)} %` : 'n/a');
const us = (s: Spread | undefined) => (s === undefined ? 'n/a' : s.median.toFixed(1));

/** "1.52" when every round agreed, else "1.52 (1.48–1.60)": the median and the min–max over rounds. */
export function formatSpread(s: Spread | undefined, digits = 2): string {
  if (s === undefined || !Number.isFinite(s.median)) return 'n/a';
  const f = (x: number) => x.toFixed(digits);
  return f(s.min) === f(s.max) ? f(s.median) : `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

/** The throughput ratio, with "*" when some round's baseline core was not saturated. */
function throughput(t: TargetSummary): string {
  return `${formatSpread(t.ratio)}${t.notServerBound > 0 && !isBaseline(t) ? '*' : ''}`;
}

function busy(s: Spread | undefined): string {
  if (s === undefined) return 'n/a';
  return Math.round(s.min * 100) === Math.round(s.max * 100) ? pct(s.median) : `${pct(s.median)} (${Math.round(s.min * 100)}–${Math.round(s.max * 100)})`;
}

/** "≤ 1.6 pass" for a target with a goal, "—" otherwise. */
function goalCell(value: Spread | undefined, limit: number | undefined): string {
  return limit === undefined ? '—' : `≤ ${limit} ${atMost(value?.median, limit)}`;
}

const isBaseline = (t: TargetSummary) => t.target === 'baseline';

export const SCENARIO_COLUMNS = [
  'target',
  'CPU µs/req',
  'CPU ratio',
  'stat µs/req',
  'req/s',
  'ratio',
  'p50',
  'p99',
  'p99 ratio',
  'errors',
  'server core',
  'load core',
  'peak RSS',
] as const;

export function scenarioTable(s: Summary): string {
  const rows = [
    [...SCENARIO_COLUMNS],
    ...s.targets.map((t) => [
      t.target,
      us(t.cpuUsPerRequest),
      isBaseline(t) ? '1.00' : formatSpread(t.cpuRatio),
      us(t.statUsPerRequest),
      num(t.reqPerSec),
      isBaseline(t) ? '1.00' : throughput(t),
      ms(t.p50Us),
      ms(t.p99Us),
      isBaseline(t) ? '1.00' : formatSpread(t.p99Ratio),
      String(t.errors),
      busy(t.serverBusy),
      busy(t.loadBusy),
      t.peakRss > 0 ? mib(t.peakRss) : 'n/a',
    ]),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const lines = rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  const n = Math.max(...s.targets.map((t) => t.rounds));
  const notes: string[] = [];
  for (const t of s.targets.filter((t) => !isBaseline(t))) {
    if (t.notServerBound > 0) {
      notes.push(
        `* ${t.target}: throughput ratio not server-bound in ${t.notServerBound} of ${t.rounds} rounds — per round, the baseline's core was ${t.baselineBusy.map(pct).join(', ')} busy and the baseline process on CPU ${t.baselineOwnShare.map(pct).join(', ')} of the run (each must be ≥ ${pct(SERVER_BOUND_BUSY)}), so something else set the pace; the CPU ratio stays valid`,
      );
    }
    if (t.ratio.median > 1)
      notes.push(`! ${t.target} served more requests per second than the bare baseline: that measures the load generator or the machine, not the server`);
  }
  const judged = s.targets.filter((t) => t.goal !== undefined);
  for (const t of judged) {
    notes.push(
      `target (issue 13) ${t.target}: CPU ratio ${formatSpread(t.cpuRatio)} ${goalCell(t.cpuRatio, t.goal!.cpuRatio)}; p99 ratio ${formatSpread(t.p99Ratio)} ${goalCell(t.p99Ratio, t.goal!.p99Ratio)}`,
    );
  }
  return [
    `${s.name}: ${s.title} (expect ${s.expect}; medians over ${n} round${n === 1 ? '' : 's'}; ratio = target ÷ baseline per round, (min–max))`,
    ...lines.map((l) => `  ${l}`),
    ...notes.map((l) => `  ${l}`),
    ...s.targets.filter((t) => !isBaseline(t)).map((t) => `  ${t.target} RSS after this scenario in each round: ${t.rssAfterRounds.map(mib).join(', ')}`),
  ].join('\n');
}

/** What the columns of scenarioTable are, once for all tables (the CPU source may differ by machine). */
export function legend(summaries: readonly Summary[]): string {
  const sources = new Set(summaries.map((s) => s.cpuSource));
  const cpu = sources.has(undefined)
    ? 'CPU µs/req: not measured (no /proc on this machine)'
    : sources.has('utime+stime')
      ? "CPU µs/req: the server process's CPU time (utime + stime, clock ticks: schedstat was not readable) ÷ requests served"
      : "CPU µs/req: the server process's time on CPU (schedstat of every thread, ns) ÷ requests served; stat µs/req: the same from utime + stime (clock ticks)";
  return [
    cpu,
    'CPU ratio, ratio (throughput), p99 ratio: target ÷ baseline in each round, median (min–max); the CPU ratio is the figure of merit',
    `server core, load core: busy share of the servers' core and the load generator's during the run; a throughput ratio counts only where the baseline's core was ≥ ${pct(SERVER_BOUND_BUSY)} busy, and with the baseline on CPU for ≥ ${pct(SERVER_BOUND_BUSY)} of the run`,
  ].join('\n');
}

/**
 * One line per server on memory over the whole run: peak RSS (VmHWM) against the issue's
 * 150 MiB, and the RSS after each round (every scenario of it) with growth flagged.
 */
export function memoryLine(target: string, hwm: number, rssAfterRounds: readonly number[], judged: boolean): string {
  const growth = rssGrowth(rssAfterRounds);
  const grew =
    growth === undefined
      ? 'growth not judged (one round)'
      : growth.grew
        ? `GROWTH: +${mib(growth.bytes)} from the first round to the last`
        : `no growth (${growth.bytes >= 0 ? '+' : ''}${mib(growth.bytes)})`;
  const peak = judged ? ` (≤ ${mib(PEAK_RSS_LIMIT)}: ${atMost(hwm > 0 ? hwm : undefined, PEAK_RSS_LIMIT)})` : '';
  return `${target}: peak RSS (VmHWM) over the whole run ${hwm > 0 ? mib(hwm) : 'n/a'}${peak}; RSS after each round ${rssAfterRounds.map(mib).join(', ')}: ${grew}`;
}

export function markdownTable(summaries: readonly Summary[]): string {
  const head =
    '| scenario | target | CPU µs/req | CPU ratio (range) | CPU target | p99 | p99 ratio (range) | p99 target | req/s | throughput ratio (range) | server core busy | load core busy | errors | peak RSS |';
  const sep = '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|';
  const rows = summaries.flatMap((s) =>
    s.targets.map((t) =>
      [
        '',
        `\`${s.title}\``,
        t.target,
        us(t.cpuUsPerRequest),
        isBaseline(t) ? '1.00' : formatSpread(t.cpuRatio),
        goalCell(t.cpuRatio, t.goal?.cpuRatio),
        ms(t.p99Us),
        isBaseline(t) ? '1.00' : formatSpread(t.p99Ratio),
        goalCell(t.p99Ratio, t.goal?.p99Ratio),
        num(t.reqPerSec),
        isBaseline(t) ? '1.00' : throughput(t),
        busy(t.serverBusy),
        busy(t.loadBusy),
        String(t.errors),
        t.peakRss > 0 ? mib(t.peakRss) : 'n/a',
        '',
      ]
        .join(' | ')
        .trim(),
    ),
  );
  const marked = summaries.some((s) => s.targets.some((t) => !isBaseline(t) && t.notServerBound > 0));
  const note = `\`*\`: throughput ratio not server-bound in some round (the baseline's core under ${pct(SERVER_BOUND_BUSY)} busy, or the baseline on CPU for under ${pct(SERVER_BOUND_BUSY)} of the run); the CPU ratio stays valid.`;
  return [head, sep, ...rows, ...(marked ? ['', note] : [])].join('\n');
}
