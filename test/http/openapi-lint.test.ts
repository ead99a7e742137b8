// The generated OpenAPI document lints clean with the two linters integrators run on it, each
// with its recommended ruleset (.spectral.yaml: spectral:oas; redocly.yaml: recommended). Each
// linter runs once, on the document and on a copy spoiled where each would complain, so the
// test shows the rulesets were applied.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openSqlite } from '../../src/storage/sqlite/sqlite.storage.ts';
import { run, UNCOVERED } from '../helpers/process.ts';

interface RedoclyProblem {
  readonly ruleId: string;
  readonly message: string;
  readonly location: { source: { ref: string } }[];
}

test('Spectral (spectral:oas) and Redocly (recommended) find nothing in the generated document', async (t) => {
  const storage = openSqlite({ path: ':memory:' });
  const app = await buildApp({ config: loadConfig({}), storage });
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  await app.close();
  await storage.close();
  const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const clean = join(dir, 'openapi.json');
  const spoiled = join(dir, 'spoiled.json');
  await writeFile(clean, JSON.stringify(doc, null, 2));
  const worse = structuredClone(doc);
  delete worse.info.contact;
  delete worse.webhooks['pet.created'].post.operationId;
  await writeFile(spoiled, JSON.stringify(worse, null, 2));

  // No telemetry and no update check: the linters run offline, as the suite does.
  // They run none of src/, so without coverage (UNCOVERED).
  const env = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', ...UNCOVERED };
  const [spectral, redocly] = await Promise.all([
    run(['node_modules/.bin/spectral', 'lint', '--ruleset', '.spectral.yaml', '--format', 'json', '--fail-severity', 'hint', '--quiet', clean, spoiled], env),
    run(['node_modules/.bin/redocly', 'lint', '--config', 'redocly.yaml', '--format', 'json', clean, spoiled], env),
  ]);

  const spectralFound = JSON.parse(spectral.stdout) as { code: string; source: string; message: string }[];
  assert.deepEqual(
    spectralFound.filter((p) => p.source === clean).map((p) => `${p.code}: ${p.message}`),
    [],
  );
  assert.deepEqual(
    spectralFound.filter((p) => p.source === spoiled).map((p) => p.code),
    ['info-contact'],
  );

  // One JSON report per file, one after the other.
  const reports = redocly.stdout.split(/(?<=^\})(?=\{$)/m).map((r) => JSON.parse(r) as { problems: RedoclyProblem[] });
  const redoclyFound = reports.flatMap((r) => r.problems);
  const at = (file: string) => redoclyFound.filter((p) => p.location[0].source.ref.endsWith(file));
  assert.deepEqual(
    at('openapi.json').map((p) => `${p.ruleId}: ${p.message}`),
    [],
  );
  assert.deepEqual(
    at('spoiled.json').map((p) => p.ruleId),
    ['operation-operationId'],
  );
});
