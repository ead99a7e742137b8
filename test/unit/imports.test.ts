import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';

const SRC = resolve(import.meta.dirname, '../../src');

// Relative module specifiers of static imports and re-exports (`from '…'`), side-effect imports
// and dynamic imports; type-only imports count too: a cycle of types is a cycle of knowledge.
const SPECIFIER = /\bfrom\s+'(\.[^']+)'|\bimport\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g;

/** Every module of src/ (paths relative to src/) and the src/ modules it imports. */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  return new Map(
    files.map((file) => {
      const text = readFileSync(join(SRC, file), 'utf8');
      const targets = [...text.matchAll(SPECIFIER)].map((m) => relative(SRC, resolve(SRC, dirname(file), m[1] ?? m[2] ?? m[3])));
      return [file, targets];
    }),
  );
}

/** One cycle per back edge of a depth-first walk, each as the path that closes it; none when the graph is acyclic. */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const done = new Set<string>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string) => {
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const at = path.indexOf(next);
      if (at !== -1) cycles.push([...path.slice(at), next]);
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    done.add(node);
  };
  for (const node of graph.keys()) if (!done.has(node)) visit(node);
  return cycles;
}

describe('imports in src/', () => {
  const graph = importGraph();

  test('the cycle finder finds a cycle where there is one, and none where there is none', () => {
    const acyclic = new Map([
      ['a', ['b', 'c']],
      ['b', ['c']],
      ['c', []],
    ]);
    assert.deepEqual(findCycles(acyclic), []);
    assert.deepEqual(findCycles(new Map([...acyclic, ['c', ['a']]])), [['a', 'b', 'c', 'a']]);
  });

  test('every relative import names a module of src/', () => {
    for (const [file, targets] of graph) for (const target of targets) assert.ok(graph.has(target), `${file} imports ${target}, which is not in src/`);
  });

  test('no module imports itself through others: no import cycle', () => {
    assert.deepEqual(
      findCycles(graph).map((cycle) => cycle.join(' → ')),
      [],
    );
  });

  test('http/ layers point one way: edge/ imports neither policies/ nor ops/, policies/ does not import ops/', () => {
    const forbidden: Record<string, readonly string[]> = { 'http/edge/': ['http/policies/', 'http/ops/'], 'http/policies/': ['http/ops/'] };
    for (const [file, targets] of graph) {
      for (const [layer, above] of Object.entries(forbidden)) {
        if (!file.startsWith(layer)) continue;
        for (const target of targets) assert.ok(!above.some((a) => target.startsWith(a)), `${file} imports ${target}`);
      }
    }
  });

  test('no barrel index.ts: a module is imported by its own name', () => {
    assert.deepEqual(
      [...graph.keys()].filter((file) => file === 'index.ts' || file.endsWith('/index.ts')),
      [],
    );
  });
});
