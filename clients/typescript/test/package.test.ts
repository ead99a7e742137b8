// The package as a user gets it: `npm pack`, installed from the tarball into an empty folder (no network:
// it has no dependencies), the README's quick start run by the system Node (v20: proves Node ≥ 20) against
// a real service, and its types compiled by a TypeScript consumer.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Petstore } from '../src/index.ts';
import { API_KEY, startPetstore, type Service } from './helpers/service.ts';
import { compile, TSC, TSC_5 } from './helpers/tsc.ts';

const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const SYSTEM_NODE = '/usr/bin/node';

/** The README's quick-start JavaScript block: the example a newcomer copies. */
function quickStart(): string {
  const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');
  const block = /## Quick start[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'README.md has a Quick start js block');
  return block;
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
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    packed = (JSON.parse(out) as (typeof packed)[])[0]!;
    execFileSync('mkdir', [app]);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', join(dir, packed.filename)], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
    svc = await startPetstore();
  });
  after(async () => {
    await svc?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('holds dist (.js and .d.ts), README and package.json only; no dependencies', () => {
    const paths = packed.files.map((f) => f.path).sort();
    assert.ok(
      paths.every((p) => /^dist\/[\w.-]+\.(js|d\.ts)$/.test(p) || p === 'README.md' || p === 'package.json'),
      paths.join(' '),
    );
    for (const p of ['dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts', 'README.md']) assert.ok(paths.includes(p), p);
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/@petstore/client/package.json'), 'utf8'));
    assert.equal(manifest.dependencies, undefined);
    assert.deepEqual(manifest.exports['.'], { types: './dist/index.d.ts', import: './dist/index.js' });
  });

  test('its JavaScript imports only its own files (no node: module: browser-safe)', () => {
    const dist = join(app, 'node_modules/@petstore/client/dist');
    for (const file of readdirSync(dist).filter((f) => f.endsWith('.js'))) {
      const source = readFileSync(join(dist, file), 'utf8');
      for (const [, specifier] of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g))
        assert.match(specifier!, /^\.\/[\w.-]+\.js$/, `${file} imports ${specifier}`);
      assert.doesNotMatch(source, /\brequire\s*\(/, file);
    }
  });

  test("the README's quick start runs on the system Node (≥ 20) against the service", async (t) => {
    if (!existsSync(SYSTEM_NODE)) {
      assert.ok(!process.env.CI, `${SYSTEM_NODE} is missing`);
      return t.skip(`${SYSTEM_NODE} is missing`);
    }
    const version = execFileSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).trim();
    assert.ok(Number(/^v(\d+)\./.exec(version)?.[1]) >= 20, version);
    writeFileSync(join(app, 'quick-start.mjs'), quickStart());
    const run = spawnSync(SYSTEM_NODE, ['quick-start.mjs'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: '/usr/bin:/bin', PETSTORE_URL: svc.baseUrl, PETSTORE_API_KEY: API_KEY },
    });
    assert.equal(run.status, 0, `${version}: ${run.stderr}`);
    const lines = run.stdout.trim().split('\n');
    assert.match(lines[0]!, /^#\d+ Rex$/);
    assert.match(lines.at(-2)!, /^order \d+ for Rex: approved$/);
    assert.match(lines.at(-1)!, /^409 pet_not_available: /);
    const client = new Petstore({ baseUrl: svc.baseUrl, apiKey: API_KEY });
    const rex = (await client.pets.list()).data.find((p) => p.name === 'Rex');
    assert.equal(rex?.status, 'pending', 'Rex is ordered: pending');
    assert.equal((await client.orders.list({ petId: rex.id })).data.length, 1, 'one order, not two');
  });

  test('its types serve a TypeScript consumer (nodenext and bundler resolution; TypeScript 7 and 5.9)', () => {
    const consumer = join(app, 'consumer.mts');
    writeFileSync(
      consumer,
      [
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
      ].join('\n'),
    );
    for (const tsc of [TSC, TSC_5]) {
      for (const moduleResolution of ['nodenext', 'bundler']) {
        const compilerOptions = moduleResolution === 'bundler' ? { module: 'esnext', moduleResolution } : { module: 'nodenext', moduleResolution };
        const { status, output } = compile([consumer], { tsc, compilerOptions });
        assert.equal(status, 0, `${tsc} ${moduleResolution}: ${output}`);
      }
    }
  });
});
