import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { after } from 'node:test';
import { freePort } from './ports.ts';

export const NODE = process.execPath; // the project's Node 24 (npm test runs under it)
export const ROOT = new URL('../../', import.meta.url).pathname;
/**
 * Node's compile cache for the processes the tests start (code cache and stripped TypeScript,
 * keyed by content): a service start then skips most of compiling src/ again. The test processes
 * themselves do not use it, as it would blur the coverage the gate measures.
 */
export const COMPILE_CACHE = `${ROOT}node_modules/.cache/petstore-test-compile`;
/**
 * Spread into the environment of a child that runs no code of src/ (a linter, a compiler, npm):
 * under `npm test` Node hands NODE_V8_COVERAGE to every child process, even one given its
 * environment whole, so each would run with V8's precise coverage and leave a report for the
 * runner to read. An empty value turns that off. The services and CLI runs the tests start keep
 * it: the coverage gate counts what they run of src/ (src/main.ts runs nowhere else).
 */
export const UNCOVERED = { NODE_V8_COVERAGE: '' } as const;
// Test files take it from here; the global setup imports ports.ts, since this module registers a test hook.
export { freePort };

// Services still running when the file's tests end (a test failed before stopping one, or a
// before hook failed half-way) are killed, so that the test process can end.
const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

export interface Started {
  readonly child: ChildProcess;
  readonly base: string;
  stdout(): string;
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `node src/main.ts` (what `npm start` runs) and resolves once /healthz answers (on METRICS_PORT when set).
 * The bound is generous: start-up takes about a second, but many times that on a machine busy with
 * the other test files (and coverage); it only decides when a start that hangs is given up.
 */
export async function startService(env: Record<string, string>, timeoutMs = 60_000): Promise<Started> {
  const port = await freePort();
  const child = spawn(NODE, ['src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: COMPILE_CACHE, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}: ${err}`);
    try {
      const health = env.METRICS_PORT ? `http://127.0.0.1:${env.METRICS_PORT}` : base;
      if ((await fetch(`${health}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start within ${timeoutMs} ms: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    base,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = 'SIGTERM') {
      // A child killed by a signal has exitCode null and signalCode set: it has exited all the same.
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}

/**
 * The first-run key a service started without a terminal wrote to the file its stderr names
 * (src/first-run-key.ts), and that file's path; undefined when it named none.
 */
export function firstRunKey(svc: Started): { key: string; file: string } | undefined {
  const file = /^ {2}(\/\S*first-run-key)$/m.exec(svc.stderr())?.[1];
  return file === undefined ? undefined : { key: readFileSync(file, 'utf8').trim(), file };
}

/** Runs a command to completion with a time bound (as generous as startService's). */
export async function run(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(NODE, args, { cwd: ROOT, env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: COMPILE_CACHE, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  return { code: code as number | null, stdout, stderr };
}
