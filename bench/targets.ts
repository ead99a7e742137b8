// Issue 13's targets, which the bench prints next to its figures. They hold for the service
// started as `npm start` starts it, 1,000 pets, SQLite, against the bare baseline of the same run.
import type { ScenarioName } from './scenarios.ts';

export interface Goal {
  /** CPU time per request at most this many times the baseline's. */
  readonly cpuRatio: number;
  /** p99 latency at most this many times the baseline's. */
  readonly p99Ratio: number;
}

export const GOALS: Partial<Record<ScenarioName, Goal>> = {
  list20: { cpuRatio: 1.6, p99Ratio: 3 },
  list100: { cpuRatio: 1.6, p99Ratio: 3 },
  get: { cpuRatio: 1.6, p99Ratio: 3 },
  unauth: { cpuRatio: 1.5, p99Ratio: 3 },
  create: { cpuRatio: 2.5, p99Ratio: 3 },
};

export const PEAK_RSS_LIMIT = 150 * 1024 * 1024;

/** The RSS after the last round may exceed the first round's by this share before it counts as growth. */
export const RSS_GROWTH_TOLERANCE = 0.05;

/** The targets are stated for SQLite with 1,000 pets; other runs report figures without a verdict. */
export function goalsApply(engine: string, size: string): boolean {
  return engine === 'sqlite' && size === '1k';
}

export type Verdict = 'pass' | 'FAIL' | 'n/a';

/** At most `limit`: pass; above it: FAIL; no figure (e.g. no /proc): n/a. */
export function atMost(value: number | undefined, limit: number): Verdict {
  if (value === undefined || !Number.isFinite(value)) return 'n/a';
  return value <= limit ? 'pass' : 'FAIL';
}

/**
 * Growth of a server's RSS across rounds, from its RSS after each round: it grew when the last
 * exceeds the first by more than RSS_GROWTH_TOLERANCE of it. A heap that reaches its plateau in
 * the warm-up and stays there does not grow; one that keeps what every round allocated does.
 * undefined with fewer than two rounds (nothing to compare).
 */
export function rssGrowth(rssAfterRounds: readonly number[]): { grew: boolean; bytes: number } | undefined {
  const known = rssAfterRounds.filter((b) => b > 0);
  if (known.length < 2) return undefined;
  const bytes = known.at(-1)! - known[0]!;
  return { grew: bytes > known[0]! * RSS_GROWTH_TOLERANCE, bytes };
}
