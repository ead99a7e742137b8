// npm test runs the suite's files in a few processes (test/groups/*.ts) rather than one process per
// file: each process loads the app's modules, compiles its schemas, warms V8 up and connects to
// PostgreSQL once for many files instead of once per file. The groups are computed, never listed:
// every test file the patterns match lands in exactly one group, and a new file needs no edit here.
// A single file still runs alone: node --test test/http/pets.test.ts.
import { globSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The suite's test files, as npm test ran them one per process before. */
export const SUITE_PATTERNS = ['test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'] as const;

const ROOT = join(import.meta.dirname, '../..');

export interface SuiteFile {
  readonly path: string;
  /** What the file costs, roughly: its size in bytes. */
  readonly weight: number;
}

export function suiteFiles(root = ROOT): SuiteFile[] {
  const paths = SUITE_PATTERNS.flatMap((p) => globSync(p, { cwd: root })).toSorted();
  return paths.map((path) => ({ path, weight: statSync(join(root, path)).size }));
}

/**
 * `count` groups of about equal weight: the heaviest file first, each into the lightest group so far
 * (ties to the lowest index). Deterministic, so a group holds the same files on every machine.
 */
export function partition(files: readonly SuiteFile[], count: number): string[][] {
  const groups = Array.from({ length: count }, () => ({ weight: 0, paths: [] as string[] }));
  const heaviestFirst = files.toSorted((a, b) => b.weight - a.weight || a.path.localeCompare(b.path));
  for (const file of heaviestFirst) {
    const lightest = groups.reduce((min, g) => (g.weight < min.weight ? g : min));
    lightest.weight += file.weight;
    lightest.paths.push(file.path);
  }
  return groups.map((g) => g.paths.toSorted());
}

/** The number of groups: the files of test/groups/, named 1.ts, 2.ts, … */
export const GROUP_COUNT = globSync('test/groups/*.ts', { cwd: ROOT }).length;

/** Imports the test files of the group whose entry file is `entry` (test/groups/N.ts). */
export async function runGroup(entry: string): Promise<void> {
  const index = Number(basename(entry, '.ts')) - 1;
  for (const path of partition(suiteFiles(), GROUP_COUNT)[index]) await import(join(ROOT, path));
}
