// A node:test reporter, run beside `spec` by npm test: after the run, the slowest tests, so that
// the suite stays fast (a new slow test shows up at the end of every run, not in a later audit).
// Tests only, not suites nor tests that run subtests: their time is their children's.
import { relative } from 'node:path';
import type { TestEvent } from 'node:test/reporters';

const SHOWN = 10;

interface Timed {
  readonly ms: number;
  readonly name: string;
  readonly file: string;
}

export default async function* slowest(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const timed: Timed[] = [];
  // Per file, per nesting level: whether a test finished there since its parent started. Events
  // of one file arrive in order (children before their parent); files may interleave.
  const childSeen = new Map<string, boolean[]>();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, file = '', details } = event.data;
    const seen = childSeen.get(file) ?? [];
    childSeen.set(file, seen);
    const hasChildren = seen[nesting + 1] === true;
    seen[nesting + 1] = false;
    seen[nesting] = true;
    if (!hasChildren && details.type !== 'suite') timed.push({ ms: details.duration_ms, name, file: relative(process.cwd(), file) });
  }
  timed.sort((a, b) => b.ms - a.ms);
  yield `\nslowest ${Math.min(SHOWN, timed.length)} of ${timed.length} tests:\n`;
  for (const t of timed.slice(0, SHOWN)) yield `${(t.ms / 1000).toFixed(1).padStart(6)} s  ${t.file} › ${t.name}\n`;
}
