// The proof of docs/contributing.md's "Add a field": a scratch copy of src/ gets an optional,
// searchable pet field (`coat`) by editing only the schemas and the field table beside them
// (pets/pet.schemas.ts) and adding one migration per engine; the copy then stores it, lists it,
// patches it, searches it and documents it on every engine, with no other edit.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { ENGINES } from '../helpers/engines.ts';
import { UNCOVERED } from '../helpers/process.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** `text` with `insert` between `anchor` and `next`, which must follow it there once only. */
function after(text: string, anchor: string, insert: string, next = ''): string {
  const at = text.indexOf(anchor + next);
  assert.ok(at !== -1 && text.indexOf(anchor + next, at + 1) === -1, `pet.schemas.ts has one ${JSON.stringify(anchor + next)}`);
  return text.slice(0, at + anchor.length) + insert + text.slice(at + anchor.length);
}

// Each schema gets the member, and the field table its row: the edit a contributor makes.
function addCoat(schemas: string): string {
  const coat = "const coat = Type.String({ minLength: 1, maxLength: 100, pattern: TEXT_PATTERN, description: 'The coat; searched by `q`' });\n";
  let s = after(schemas, 'export type PriceInput = Static<ReturnType<typeof priceInput>>;\n', coat);
  const member = '    coat: Type.Optional(coat),\n';
  s = after(s, '    description: Type.Optional(description),\n', member, '    tags: Type.Optional(tags),'); // NewPet
  s = after(s, '    description: Type.Optional(description),\n', member, '    tags,'); // Pet
  s = after(
    s,
    "  description: Type.Optional(Type.Union([description, Type.Null()], { description: 'The new description; `null` removes it' })),\n",
    "  coat: Type.Optional(Type.Union([coat, Type.Null()], { description: 'The new coat; `null` removes it' })),\n",
  );
  return after(
    s,
    "  { member: 'description', columns: ['description'], kind: 'text', written: 'always', searched: true },\n",
    "  { member: 'coat', columns: ['coat'], kind: 'text', written: 'always', searched: true },\n",
  );
}

// What the copy runs: the real app (test/helpers/app.ts) on every engine, through HTTP.
const PROOF = `
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from './helpers/app.ts';
import { ENGINES } from './helpers/engines.ts';

for (const engine of ENGINES) {
  test(engine + ': coat is stored, listed, patched, searched and documented', async (t) => {
    const { app, auth } = await buildTestApp(t, { engine });
    const json = { ...auth, 'content-type': 'application/json' };
    const created = await app.inject({ method: 'POST', url: '/v1/pets', headers: json, payload: { name: 'Rex', categoryId: 1, coat: 'Wire Haired' } });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id;
    assert.equal(created.json().coat, 'Wire Haired');
    const other = await app.inject({ method: 'POST', url: '/v1/pets', headers: json, payload: { name: 'Tom', categoryId: 1 } });
    assert.equal(other.statusCode, 201, other.body);
    assert.equal('coat' in other.json(), false, 'absent when not given');

    const listed = await app.inject({ url: '/v1/pets', headers: auth });
    assert.deepEqual(listed.json().map((p) => p.coat ?? null), ['Wire Haired', null]);
    const found = await app.inject({ url: '/v1/pets?q=wir', headers: auth });
    assert.deepEqual(found.json().map((p) => p.id), [id]);

    const patched = await app.inject({ method: 'PATCH', url: '/v1/pets/' + id, headers: json, payload: { coat: 'Smooth Double' } });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().coat, 'Smooth Double');
    assert.equal((await app.inject({ url: '/v1/pets/' + id, headers: auth })).json().coat, 'Smooth Double');
    assert.deepEqual((await app.inject({ url: '/v1/pets?q=doub', headers: auth })).json().map((p) => p.id), [id]);
    assert.deepEqual((await app.inject({ url: '/v1/pets?q=wiriever', headers: auth })).json(), []);
    // The CSV export (and so the import) has its column, in the field table's place.
    const csv = (await app.inject({ url: '/v1/pets.csv', headers: auth })).body.split('\\r\\n');
    assert.match(csv[0], /^id,name,category,status,description,coat,tags,/);
    assert.ok(csv.some((line) => line.startsWith(id + ',Rex,') && line.includes(',Smooth Double,')), csv.join('|'));
    const unchanged = await app.inject({ method: 'PATCH', url: '/v1/pets/' + id, headers: json, payload: { coat: 'Smooth Double' } });
    assert.equal(unchanged.json().updatedAt, patched.json().updatedAt, 'the same value changes nothing');
    const removed = await app.inject({ method: 'PATCH', url: '/v1/pets/' + id, headers: json, payload: { coat: null } });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.equal('coat' in removed.json(), false);
    assert.equal((await app.inject({ method: 'POST', url: '/v1/pets', headers: json, payload: { name: 'X', categoryId: 1, coat: '' } })).statusCode, 400);

    const doc = (await app.inject({ url: '/v1/openapi.json' })).json();
    for (const schema of ['Pet', 'NewPet', 'PetPatch']) assert.ok(doc.components.schemas[schema].properties.coat, schema);
    assert.match(doc.paths['/pets/{petId}'].patch.description, /\`description\`, \`coat\`, \`tags\`/);
    assert.match(doc.components.schemas.PetPatch.description, /\`null\` removes \`description\`, \`coat\`, \`tags\`, \`price\`, /);
    const q = doc.paths['/pets'].get.parameters.find((p) => p.name === 'q');
    assert.match(q.description, /name, description, coat, tags, breed or colour/);
  });
}
`;

test('an optional, searchable pet field takes the field table and the schemas (one file) and a migration per engine', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'petstore-field-'));
  try {
    cpSync(join(ROOT, 'src'), join(scratch, 'src'), { recursive: true });
    cpSync(join(ROOT, 'test/helpers'), join(scratch, 'test/helpers'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(scratch, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'), 'dir');

    const schemas = join(scratch, 'src/pets/pet.schemas.ts');
    writeFileSync(schemas, addCoat(readFileSync(schemas, 'utf8')));
    const migrations = join(scratch, 'src/storage/migrations');
    const next = String(readdirSync(migrations).length + 1).padStart(4, '0');
    mkdirSync(join(migrations, `${next}-pet-coat`));
    for (const engine of ['sqlite', 'postgres']) {
      writeFileSync(join(migrations, `${next}-pet-coat`, `${engine}.sql`), '-- name: pets: coat\n\nALTER TABLE pets ADD COLUMN coat TEXT;\n');
    }
    writeFileSync(join(scratch, 'test/proof.test.ts'), PROOF);

    // A test run of its own (without this runner's context), on the engines this one runs.
    // Without coverage: the scratch copy's src/ is not the src/ the gate measures.
    const { NODE_TEST_CONTEXT, ...env } = process.env;
    const child = spawn(process.execPath, ['--import', './test/helpers/strip-cache.ts', '--test', '--test-reporter=tap', 'test/proof.test.ts'], {
      cwd: scratch,
      env: { ...env, ...UNCOVERED },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise((done) => child.on('close', done));
    assert.equal(code, 0, output);
    assert.match(output, /# pass [1-9]\n/);
    assert.match(output, /# fail 0\n/);
    for (const engine of ENGINES) assert.match(output, new RegExp(`\\nok \\d+ - ${engine}: coat is stored`), `ran on ${engine}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
