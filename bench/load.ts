// Drives one server for one bounded run and returns what the tables report. wrk (Debian package)
// when installed; otherwise bench/loadgen.ts, a small Node generator good enough for --smoke.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { catchesSigint } from './proc.ts';
import { pinned } from './processes.ts';

export const HAS_WRK = spawnSync('wrk', ['-v'], { stdio: 'ignore' }).error === undefined;

export interface LoadSpec {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly body?: string;
  readonly authorization?: string;
  readonly connections: number;
  readonly seconds: number;
  readonly cpu: number;
}

export interface LoadResult {
  readonly requests: number;
  readonly durationUs: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly maxUs: number;
  /** Responses with status ≥ 400 (wrk cannot tell statuses apart more finely without slowing down). */
  readonly non2xx: number;
  readonly socketErrors: number;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const env = { ...process.env, BENCH_METHOD: spec.method, BENCH_BODY: spec.body ?? '', BENCH_AUTH: spec.authorization ?? '' };
  // wrk takes whole seconds: a run of a fraction of one is ended by SIGINT, which wrk answers as it
  // answers the end of -d, with its report (over the time it ran).
  const whole = Math.ceil(spec.seconds);
  const argv = HAS_WRK
    ? ['wrk', '-t1', `-c${spec.connections}`, `-d${whole}s`, '--timeout', '5s', '-s', fileURLToPath(new URL('wrk.lua', import.meta.url)), spec.url]
    : [process.execPath, fileURLToPath(new URL('loadgen.ts', import.meta.url)), `--connections=${spec.connections}`, `--seconds=${spec.seconds}`, spec.url];
  const interruptMs = HAS_WRK && whole !== spec.seconds ? spec.seconds * 1000 : undefined;
  const out = await capture(pinned(spec.cpu, argv), env, (whole + 30) * 1000, interruptMs);
  const line = out.split('\n').find((l) => l.startsWith('BENCH-RESULT '));
  if (!line) throw new Error(`load generator printed no result:\n${out}`);
  return JSON.parse(line.slice('BENCH-RESULT '.length)) as LoadResult;
}

function capture(argv: string[], env: NodeJS.ProcessEnv, timeoutMs: number, interruptMs?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    // Bounded even if the generator hangs: it is killed by its PID.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // wrk's run starts when it installs its SIGINT handler (SigCgt in /proc, watched every 10 ms;
    // before that it ignores SIGINT or, still starting, would die of it without a report). The run is
    // interrupted `interruptMs` after that: it lasts that long however slowly a busy machine starts wrk.
    let interrupt: NodeJS.Timeout | undefined;
    const watch = () => {
      if (child.pid !== undefined && catchesSigint(child.pid)) interrupt = setTimeout(() => child.kill('SIGINT'), interruptMs);
      else interrupt = setTimeout(watch, 10);
    };
    if (interruptMs !== undefined) watch();
    child.once('error', reject);
    // 'close', not 'exit': the generator prints its result as it exits, and 'exit' can come before
    // the last of its output has been read (seen on a busy machine: an empty result).
    child.once('close', (code) => {
      clearTimeout(timer);
      clearTimeout(interrupt);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} exited with ${code}:\n${out}`));
    });
  });
}
