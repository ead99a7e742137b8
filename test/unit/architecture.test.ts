// The layers of docs/architecture.md, checked on src/ as it is: what may import what, and no cycle.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = resolve(import.meta.dirname, '../../src');

interface Import {
  readonly to: string; // path relative to src/
  readonly typeOnly: boolean;
}

// `import …`, `export … from` and `import(…)` of a relative path; `import type` / `export type` and
// lists whose every name is `type X` are erased at run time.
const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const found: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const target = m[4] ?? m[5];
    const names = m[3] ?? '';
    const list = /^\{([^}]*)\}$/.exec(names.trim());
    const allTypes = list?.[1].split(',').every((n) => n.trim() === '' || n.trim().startsWith('type ')) === true;
    found.push({ to: relative(SRC, resolve(SRC, dirname(file), target)), typeOnly: m[2] !== undefined || allTypes });
  }
  return found;
}

const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const ENGINES = /^storage\/(sqlite|postgres|sql)\//;
// Modules that hold only schemas, types and constants a schema needs: what storage/ may read from a domain.
const DEFINITIONS = /\.(schemas|types)\.ts$|^errors\.ts$|^config\.ts$/;

test('storage/ imports no domain rule: only schemas and type modules (and errors.ts), or types', () => {
  const wrong = files
    .filter((f) => f.startsWith('storage/'))
    .flatMap((f) =>
      graph
        .get(f)!
        .filter((i) => !i.to.startsWith('storage/') && !i.typeOnly && !DEFINITIONS.test(i.to))
        .map((i) => `${f} → ${i.to}`),
    );
  assert.deepEqual(wrong, []);
});

test('only storage/ and the composition root (storage/open.ts) reach an engine', () => {
  const wrong = files
    .filter((f) => !f.startsWith('storage/'))
    .flatMap((f) =>
      graph
        .get(f)!
        .filter((i) => ENGINES.test(i.to))
        .map((i) => `${f} → ${i.to}`),
    );
  assert.deepEqual(wrong, []);
});

test('storage/storage.ts declares Storage and Transaction only: each repository interface sits in its domain folder (*.store.ts)', () => {
  const text = readFileSync(join(SRC, 'storage/storage.ts'), 'utf8');
  const declared = [...text.matchAll(/^export (?:interface|type|const|function|class) (\w+)/gm)].map((m) => m[1]);
  assert.deepEqual(declared.sort(), ['Storage', 'StorageStats', 'Transaction']);
  const stores = files.filter((f) => f.endsWith('.store.ts'));
  assert.ok(stores.includes('pets/pet.store.ts'), 'the pets domain declares its repositories');
  for (const store of stores) assert.ok(!store.startsWith('storage/'), `${store} is a domain's, not the storage's`);
});

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

test('the cycle finder finds a cycle where there is one, and none where there is none', () => {
  const acyclic = new Map([
    ['a', ['b', 'c']],
    ['b', ['c']],
    ['c', []],
  ]);
  assert.deepEqual(findCycles(acyclic), []);
  assert.deepEqual(findCycles(new Map([...acyclic, ['c', ['a']]])), [['a', 'b', 'c', 'a']]);
});

test('no import cycle, counting type imports too: a cycle of types is a cycle of knowledge', () => {
  const targets = new Map([...graph].map(([f, imports]) => [f, imports.map((i) => i.to)]));
  assert.deepEqual(
    findCycles(targets).map((cycle) => cycle.join(' → ')),
    [],
  );
});

test('every relative import names a module of src/', () => {
  for (const [file, imports] of graph) for (const { to } of imports) assert.ok(graph.has(to), `${file} imports ${to}, which is not in src/`);
});

test('http/ layers point one way: edge/ imports neither policies/ nor ops/, policies/ does not import ops/', () => {
  const forbidden: Record<string, readonly string[]> = { 'http/edge/': ['http/policies/', 'http/ops/'], 'http/policies/': ['http/ops/'] };
  for (const [file, imports] of graph) {
    for (const [layer, above] of Object.entries(forbidden)) {
      if (!file.startsWith(layer)) continue;
      for (const { to } of imports) assert.ok(!above.some((a) => to.startsWith(a)), `${file} imports ${to}`);
    }
  }
});

test('no barrel index.ts: a module is imported by its own name', () => {
  assert.deepEqual(
    files.filter((file) => file === 'index.ts' || file.endsWith('/index.ts')),
    [],
  );
});

test('the check reads the imports it claims to (a known edge of each kind is found)', () => {
  assert.ok(
    graph.get('storage/open.ts')!.some((i) => i.to === 'storage/postgres/postgres.storage.ts' && !i.typeOnly),
    'dynamic import',
  );
  assert.ok(
    graph.get('storage/storage.ts')!.some((i) => i.to === 'pets/pet.store.ts' && i.typeOnly),
    'import type',
  );
  assert.ok(
    graph.get('pets/pet.service.ts')!.some((i) => i.to === 'events/event.outbox.ts' && !i.typeOnly),
    'value import',
  );
});
