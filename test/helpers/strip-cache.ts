// Loaded into every test process by `npm test` (node --import): Node strips the types of each
// TypeScript file it loads, in every process, ≈ 0.25 s of CPU per test process for this app's
// sources. This hook strips a file once per content and Node version and keeps the JavaScript in
// node_modules/.cache, so the ~100 test processes of a run share the work. The output is exactly
// Node's own (the same stripping call and sourceURL comment: positions, stack traces and coverage
// unchanged). Not the compile cache (NODE_COMPILE_CACHE): V8's code cache makes coverage imprecise.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';

export const STRIP_CACHE = join(import.meta.dirname, '../../node_modules/.cache/petstore-test-strip');

/** The JavaScript Node runs for the TypeScript module at `url`: from the cache, or stripped and cached. */
export function stripped(url: string, source: string, dir = STRIP_CACHE): string {
  const file = join(dir, `${createHash('sha256').update(`${process.version}\0${url}\0${source}`).digest('hex')}.js`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    const code = strip(source, url);
    mkdirSync(dir, { recursive: true });
    // Written whole then renamed: a process reading the cache never sees half a file.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, code);
    renameSync(partial, file);
    return code;
  }
}

/** What Node's loader does with a .ts module (type stripping, then `//# sourceURL=<url>`). */
function strip(source: string, url: string): string {
  // The API warns once per process that it is experimental; Node's loader calls the same stripping silently.
  const { emitWarning } = process;
  process.emitWarning = () => {};
  try {
    return stripTypeScriptTypes(source, { sourceUrl: url });
  } finally {
    process.emitWarning = emitWarning;
  }
}

registerHooks({
  load(url, context, nextLoad) {
    if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) return nextLoad(url, context);
    return { format: 'module', source: stripped(url, readFileSync(new URL(url), 'utf8')), shortCircuit: true };
  },
});
