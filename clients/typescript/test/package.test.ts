// The package as a user gets it: `npm pack`, installed from the tarball into an empty folder (no network:
// it has no dependencies; a CommonJS project, as `npm init -y` makes one), the README's quick start run
// by the system Node (v20: proves Node ≥ 20) against a real service as an ES module and through
// require(), and its types compiled by a TypeScript consumer of each kind.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Petstore } from '../src/index.ts';
import { API_KEY, startPetstore, type Service } from './helpers/service.ts';
import { compileEach, TSC, TSC_5 } from './helpers/tsc.ts';

const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const SYSTEM_NODE = '/usr/bin/node';

const IMPORT_LINE = /^import \{ Petstore, PetstoreError \} from '@petstore\/client';\n/;

/** The README's quick-start JavaScript block (an ES module): the example a newcomer copies. */
function quickStart(): string {
  const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');
  const block = /## Quick start[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'README.md has a Quick start js block');
  assert.match(block, IMPORT_LINE);
  return block;
}

/** The same quick start as CommonJS: the README's require() line, the rest inside an async function, as it says. */
function quickStartRequired(): string {
  const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');
  const line = /## Quick start[\s\S]*?```js\n(const \{ Petstore, PetstoreError \} = require\('@petstore\/client'\);)\n```/.exec(readme)?.[1];
  assert.ok(line, 'README.md shows the require() line in the Quick start');
  const body = quickStart().replace(IMPORT_LINE, '');
  return `${line}\n(async () => {\n${body}})().catch((err) => {\n  console.error(err);\n  process.exitCode = 1;\n});\n`;
}

describe('the packed package', () => {
  let dir: string;
  let app: string;
  let svc: Service;
  let packed: { filename: string; files: { path: string }[] };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'petstore-sdk-pack-'));
    app = join(dir, 'app');
    // `npm pack` runs prepack (the build); with --json its scripts' output goes to stderr.
    // npm and the build it runs are tools, not the code under test: no V8 coverage for them (Node
    // would hand its NODE_V8_COVERAGE to every child under `npm test`).
    const env = { ...process.env, NODE_V8_COVERAGE: '' };
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
    packed = (JSON.parse(out) as (typeof packed)[])[0]!;
    execFileSync('mkdir', [app]);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', join(dir, packed.filename)], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'], env });
    svc = await startPetstore();
  });
  after(async () => {
    await svc?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('holds dist (ES modules), dist/cjs (CommonJS), each with .d.ts, README and package.json only; no dependencies', () => {
    const paths = packed.files.map((f) => f.path).sort();
    assert.ok(
      paths.every((p) => /^dist\/(cjs\/)?[\w.-]+\.(js|d\.ts)$/.test(p) || ['dist/cjs/package.json', 'README.md', 'package.json'].includes(p)),
      paths.join(' '),
    );
    for (const p of ['dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json', 'README.md'])
      assert.ok(paths.includes(p), p);
    const installed = join(app, 'node_modules/@petstore/client');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.dependencies, undefined);
    assert.deepEqual(manifest.exports['.'], {
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/cjs/index.d.ts', default: './dist/cjs/index.js' },
    });
    assert.deepEqual(JSON.parse(readFileSync(join(installed, 'dist/cjs/package.json'), 'utf8')), { type: 'commonjs' });
    assert.equal(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).type, undefined, 'the consumer project is CommonJS, as npm init -y makes it');
  });

  test('its JavaScript loads only its own files (no node: module: browser-safe); dist imports, dist/cjs requires', () => {
    const dist = join(app, 'node_modules/@petstore/client/dist');
    for (const [folder, loads, never] of [
      [dist, /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g, /\brequire\s*\(/],
      [join(dist, 'cjs'), /\brequire\s*\(\s*['"]([^'"]+)['"]/g, /^\s*(import|export)\b/m],
    ] as const) {
      const files = readdirSync(folder).filter((f) => f.endsWith('.js'));
      assert.ok(files.includes('index.js') && files.includes('client.js'), folder);
      for (const file of files) {
        const source = readFileSync(join(folder, file), 'utf8');
        for (const [, specifier] of source.matchAll(loads)) assert.match(specifier!, /^\.\/[\w.-]+\.js$/, `${folder}/${file} loads ${specifier}`);
        assert.doesNotMatch(source, never, `${folder}/${file}`);
      }
    }
  });

  // An ES module (.mjs) and a CommonJS file (.js in the project npm init -y makes): import and require().
  for (const [kind, file, source] of [
    ['an ES module (import)', 'quick-start.mjs', quickStart],
    ['CommonJS (require)', 'quick-start.js', quickStartRequired],
  ] as const) {
    test(`the README's quick start runs on the system Node (≥ 20) against the service, as ${kind}`, async (t) => {
      if (!existsSync(SYSTEM_NODE)) {
        assert.ok(!process.env.CI, `${SYSTEM_NODE} is missing`);
        return t.skip(`${SYSTEM_NODE} is missing`);
      }
      const version = execFileSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).trim();
      assert.ok(Number(/^v(\d+)\./.exec(version)?.[1]) >= 20, version);
      writeFileSync(join(app, file), source());
      const run = spawnSync(SYSTEM_NODE, [file], {
        cwd: app,
        encoding: 'utf8',
        timeout: 20_000,
        env: { PATH: '/usr/bin:/bin', PETSTORE_URL: svc.baseUrl, PETSTORE_API_KEY: API_KEY, NODE_V8_COVERAGE: '' },
      });
      assert.equal(run.status, 0, `${version}: ${run.stderr}`);
      const lines = run.stdout.trim().split('\n');
      // The new Rex is the only available one: the Rex of an earlier run is ordered.
      const id = Number(/^#(\d+) Rex$/.exec(lines[0]!)?.[1]);
      assert.ok(id > 0, lines[0]);
      assert.match(lines.at(-2)!, /^order \d+ for Rex: approved$/);
      assert.match(lines.at(-1)!, /^409 pet_not_available: /);
      const client = new Petstore({ baseUrl: svc.baseUrl, apiKey: API_KEY });
      const rex = (await client.pets.list()).data.find((p) => p.id === id);
      assert.equal(rex?.status, 'pending', 'Rex is ordered: pending');
      assert.equal((await client.orders.list({ petId: id })).data.length, 1, 'one order, not two');
    });
  }

  test('its types serve a TypeScript consumer: ES module (nodenext, bundler) and CommonJS (nodenext .cts); TypeScript 7 and 5.9', () => {
    const body = [
      "import { Petstore, PetstoreError, type Pet } from '@petstore/client';",
      "const petstore = new Petstore({ baseUrl: 'https://api.example.com/v1', apiKey: 'pst_x' });",
      "export const pet: Promise<Pet> = petstore.pets.create({ name: 'Rex', categoryId: 1 });",
      'export const code = (e: PetstoreError): string => e.code;',
      '// @ts-expect-error categoryId is required',
      "petstore.pets.create({ name: 'Rex' });",
      '// @ts-expect-error not a PetStatus',
      "petstore.pets.list({ status: 'bogus' });",
      'export async function rename(id: number): Promise<Pet | undefined> {',
      '  const { data, etag } = await petstore.pets.get.withResponse(id);',
      "  await petstore.pets.update(data.id, { name: 'Rex II' }, { ifMatch: etag });",
      '  const maybe = await petstore.pets.get(id, { ifNoneMatch: etag });',
      '  // @ts-expect-error undefined when not modified',
      '  maybe.name;',
      '  return maybe;',
      '}',
      '// @ts-expect-error getCategory documents no If-None-Match',
      "petstore.categories.get(1, { ifNoneMatch: 'x' });",
      '// @ts-expect-error no such status: PetstoreError.status is a union',
      'export const typo = (e: PetstoreError): boolean => e.status === 4044;',
      'export const firstTen = (): Promise<Pet[]> => petstore.pets.iterate().toArray({ limit: 10 });',
    ].join('\n');
    // The same code as an ES module and as CommonJS (.cts: TypeScript resolves the package's "require" types).
    const esm = join(app, 'consumer.mts');
    const cjs = join(app, 'consumer.cts');
    writeFileSync(esm, body);
    writeFileSync(cjs, body);
    // Under nodenext the .mts is an ES module and the .cts CommonJS, each resolving its own
    // conditions, so one program checks both; the bundler program is a second project of the same
    // compiler process (a compiler run costs seconds of CPU).
    const checks = [
      { files: [esm, cjs], compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } },
      { files: [esm], compilerOptions: { module: 'esnext', moduleResolution: 'bundler' } },
    ];
    for (const tsc of [TSC, TSC_5]) {
      const { status, output } = compileEach(checks, tsc);
      assert.equal(status, 0, `${tsc} ${JSON.stringify(checks)}: ${output}`);
    }
  });
});
