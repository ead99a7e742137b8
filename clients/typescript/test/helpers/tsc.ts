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

/** `tsc --strict --noEmit` over `files` with browser libraries and no Node types (what a web app has). */
export function compile(files: string[], options: { tsc?: string; compilerOptions?: Record<string, unknown> } = {}): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-sdk-tsc-'));
  try {
    const compilerOptions = {
      strict: true,
      noEmit: true,
      target: 'es2022',
      module: 'nodenext',
      lib: ['es2022', 'dom'],
      types: [],
      skipLibCheck: false,
      ...options.compilerOptions,
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }));
    const run = spawnSync(process.execPath, [options.tsc ?? TSC, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
