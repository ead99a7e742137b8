// Runs a TypeScript compiler over some files with a throw-away tsconfig.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's TypeScript (7): what builds the package. */
export const TSC = fileURLToPath(new URL('../../../../node_modules/typescript/bin/tsc', import.meta.url));
/** TypeScript 5.9, installed beside openapi-typescript (its peer): an older compiler a user may have. */
export const TSC_5 = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

/** The options every check starts from: strict, browser libraries and no Node types (what a web app has). */
const BASE_OPTIONS = { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', lib: ['es2022', 'dom'], types: [], skipLibCheck: false };

/** `tsc --strict --noEmit` over `files` with browser libraries and no Node types (what a web app has). */
export function compile(files: string[], options: { tsc?: string; compilerOptions?: Record<string, unknown> } = {}): { status: number | null; output: string } {
  return compileEach([{ files, compilerOptions: options.compilerOptions }], options.tsc);
}

/**
 * Several such checks, each its own program with its own options, in one compiler process
 * (`tsc --build --force` over one tsconfig each): a compiler process costs seconds of CPU before
 * it checks anything. Fails if any of them has an error; the output names the file.
 */
export function compileEach(
  checks: readonly { files: readonly string[]; compilerOptions?: Record<string, unknown> }[],
  tsc = TSC,
): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-sdk-tsc-'));
  try {
    const projects = checks.map(({ files, compilerOptions }, i) => {
      const project = join(dir, `tsconfig.${i}.json`);
      writeFileSync(project, JSON.stringify({ compilerOptions: { ...BASE_OPTIONS, ...compilerOptions }, files }));
      return project;
    });
    const args = projects.length === 1 ? ['-p', projects[0]!] : ['--build', '--force', ...projects];
    // Without V8 coverage, which Node hands every child under `npm test`: the compiler is not the
    // code under test, and TypeScript 5.9 (JavaScript) takes half as long again with it.
    const run = spawnSync(process.execPath, [tsc, ...args], { encoding: 'utf8', env: { ...process.env, NODE_V8_COVERAGE: '' } });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
