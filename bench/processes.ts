// Child processes of a benchmark run: the servers (pinned to one core when taskset exists), their
// readiness and memory, and stopping them. Every child is ended by its PID when the run ends.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';

const HAS_TASKSET = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
export const CPUS = (() => {
  const affinity = spawnSync('nproc', [], { encoding: 'utf8' }).stdout?.trim();
  return Number(affinity) || 1;
})();

/** Whether pinned() pins (taskset exists, two cores or more): only then does a core's load say whose it is. */
export const PINNED = HAS_TASKSET && CPUS >= 2;

/** The command line with `taskset -c <cpu>` in front when pinning is possible and worth it. */
export function pinned(cpu: number, argv: readonly string[]): string[] {
  return PINNED ? ['taskset', '-c', String(cpu), ...argv] : [...argv];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface Server {
  readonly name: string;
  readonly port: number;
  readonly pid: number;
  /** Current and peak resident set size in bytes (Linux /proc; 0 elsewhere). */
  memory(): { rss: number; hwm: number };
  stop(): Promise<void>;
}

export async function startServer(name: string, argv: readonly string[], env: NodeJS.ProcessEnv, port: number): Promise<Server> {
  const [cmd, ...args] = argv;
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    if (stderr.length < 10_000) stderr += c.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitReady(child, port, () => stderr);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    name,
    port,
    pid: child.pid!,
    memory: () => memoryOf(child.pid!),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function waitReady(child: ChildProcess, port: number, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}: ${stderr().trim()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server on port ${port} not ready within 60 s: ${stderr().trim()}`);
}

function memoryOf(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** The environment and node flags `npm start` runs the checkout at `root` with (see startCommand). */
export function npmStart(root: string): { env: Record<string, string>; flags: string[] } {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  return startCommand(pkg.scripts?.start);
}

/**
 * The environment assignments and node flags of the checkout's `npm start`
 * ("NAME=value … [exec] node <flags> src/main.ts"): the service runs as deployed.
 */
export function startCommand(script: string | undefined): { env: Record<string, string>; flags: string[] } {
  const m = /^((?:[A-Z_][A-Z0-9_]*=\S+ )*)(?:exec )?node((?: -{1,2}[\w-]+(?:=\S+)?)*) src\/main\.ts$/.exec(script ?? '');
  if (!m) return { env: {}, flags: [] };
  const env = Object.fromEntries(
    m[1]!
      .split(' ')
      .filter(Boolean)
      .map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
  );
  return { env, flags: m[2]!.split(' ').filter(Boolean) };
}
