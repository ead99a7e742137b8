// Drives one server for one bounded run and returns what the tables report. wrk (Debian package)
// when installed; otherwise bench/loadgen.ts, a small Node generator good enough for --smoke.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
  const argv = HAS_WRK
    ? ['wrk', '-t1', `-c${spec.connections}`, `-d${spec.seconds}s`, '--timeout', '5s', '-s', fileURLToPath(new URL('wrk.lua', import.meta.url)), spec.url]
    : [process.execPath, fileURLToPath(new URL('loadgen.ts', import.meta.url)), `--connections=${spec.connections}`, `--seconds=${spec.seconds}`, spec.url];
  const out = await capture(pinned(spec.cpu, argv), env, (spec.seconds + 30) * 1000);
  const line = out.split('\n').find((l) => l.startsWith('BENCH-RESULT '));
  if (!line) throw new Error(`load generator printed no result:\n${out}`);
  return JSON.parse(line.slice('BENCH-RESULT '.length)) as LoadResult;
}

function capture(argv: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    // Bounded even if the generator hangs: it is killed by its PID.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} exited with ${code}:\n${out}`));
    });
  });
}
