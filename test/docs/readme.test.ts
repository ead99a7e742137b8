// The README's store walk-through, run as a reader runs it: its shell block, taken from README.md (so
// the test cannot drift from the text), by bash with curl and jq against the service started as
// `npm start` starts it, with the first-run key it prints. Run twice in a row on one database: every
// answer the README shows (its `#   ` lines) must come back both times, ids and entity tags aside.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { firstRunKey, ROOT, startService } from '../helpers/process.ts';

const TOOLS = ['bash', 'curl', 'jq'];
const MARK = '@@command ';

interface Command {
  readonly line: string;
  /** The answer the README shows under it (`#   …` lines); `…` stands for anything. */
  readonly expected: readonly string[];
}

/** The walk-through's shell block and its commands, each with the answer shown under it. */
function walkThrough(): { script: string; commands: Command[] } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const script = /## A store run through the API[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(script, 'README.md has the walk-through shell block');
  const commands: { line: string; expected: string[] }[] = [];
  for (const line of script.split('\n')) {
    const shown = /^# {3}(\S.*)$/.exec(line); // an answer; a comment that goes on is indented further
    if (shown) commands.at(-1)?.expected.push(shown[1]!);
    else if (line.trim() !== '' && !line.startsWith('#')) {
      assert.ok(!line.endsWith('\\'), `one command per line: ${line}`);
      commands.push({ line, expected: [] });
    }
  }
  return { script, commands };
}

/** The block with the reader's two settings filled in, and a marker printed before each command. */
function instrumented(commands: readonly Command[], api: string, owner: string): string {
  const lines = commands.map(({ line }, i) => {
    if (/^API=/.test(line)) return `API=${api}`;
    if (/^OWNER=/.test(line)) return `OWNER=${owner}`;
    return `echo '${MARK}${i}'\n${line}`;
  });
  assert.equal(commands.filter(({ line }) => /^(API|OWNER)=/.test(line)).length, 2, 'the block sets API and OWNER once each');
  return lines.join('\n');
}

/** What differs between runs and databases: ids (any `…id`/`…Id` field) and entity tags. */
function normalise(text: string): string {
  return text.replace(/("\w*(?:id|Id)":)\d+/g, '$1#').replace(/^"[A-Za-z0-9_-]{22}"$/, '"#etag"');
}

function matches(actual: string, expected: string): boolean {
  const pattern = normalise(expected)
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(normalise(actual));
}

/** Each command's output lines, split at the markers. */
function answers(stdout: string): Map<number, string[]> {
  const out = new Map<number, string[]>();
  let current: string[] = [];
  for (const line of stdout.split('\n')) {
    if (line.startsWith(MARK)) {
      current = [];
      out.set(Number(line.slice(MARK.length)), current);
    } else if (line !== '') current.push(line);
  }
  return out;
}

test("the README's walk-through answers as it shows, twice in a row on one database", async (t) => {
  const missing = TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
  if (missing.length > 0) {
    assert.ok(!process.env.CI, `missing: ${missing.join(', ')} (.ci/run installs them)`);
    return t.skip(`missing: ${missing.join(', ')}`);
  }
  const { commands } = walkThrough();
  assert.ok(commands.filter((c) => c.expected.length > 0).length >= 10, 'the README shows the answers');
  const dir = mkdtempSync(join(tmpdir(), 'petstore-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const svc = await startService({ DATABASE_URL: `sqlite:${join(dir, 'petstore.db')}` });
  t.after(() => svc.stop('SIGKILL'));
  const owner = firstRunKey(svc)?.key;
  assert.ok(owner, `npm start wrote the first-run key to a file it names: ${svc.stderr()}`);
  const script = instrumented(commands, `${svc.base}/v1`, owner);

  for (const round of [1, 2]) {
    // stdin not a pipe: bash given a socket as stdin by a caller with SHLVL unset reads /etc/bash.bashrc,
    // whose Debian copy fails under -u (PS1: unbound variable).
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
    assert.equal(run.status, 0, `round ${round}: ${run.stderr}`);
    assert.equal(run.stderr, '', `round ${round}`);
    const got = answers(run.stdout);
    commands.forEach(({ line, expected }, i) => {
      if (expected.length === 0) return;
      const actual = got.get(i) ?? [];
      assert.ok(
        actual.length === expected.length && actual.every((a, k) => matches(a, expected[k]!)),
        `round ${round}: ${line}\n  README: ${expected.join('\n          ')}\n  answer: ${actual.join('\n          ')}`,
      );
    });
  }
});
