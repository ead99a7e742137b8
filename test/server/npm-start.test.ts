// `npm start` under a supervisor: whichever of its processes gets SIGTERM — npm, the service, or
// both (systemd signals every process of a unit) — the service drains, exits 0 and frees its port,
// and npm exits with it. Started for real, as README's first command does (issue 26 item 9).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { COMPILE_CACHE, freePort, ROOT } from '../helpers/process.ts';

const KEY = 'npm-start-test-key-0123456789abcdef';
// Generous, as for every started service (test/helpers/process.ts): only a hang waits this long.
const START_MS = 60_000;
const STOP_MS = 20_000;

/** The parent pid and state of a process, or undefined when it is gone (or a zombie: it has exited). */
function processStat(pid: number): { ppid: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
  const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return state === 'Z' || state === 'X' ? undefined : { ppid: Number(ppid) };
}

/** The file name of the program a process runs (`node`, `sh`, …). */
function program(pid: number): string {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return '';
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** Every live descendant of `root` (npm's shell, if any, and the service). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = processStat(pid);
    if (stat !== undefined) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

async function until(what: string, ms: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface NpmStart {
  readonly npm: ChildProcess;
  readonly service: number;
  readonly port: number;
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
  output(): string;
}

/** `npm start` on a fresh SQLite file; whatever of it is left is killed at the end, by pid. */
async function npmStart(t: TestContext): Promise<NpmStart> {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-npm-start-'));
  const port = await freePort();
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME ?? dir,
      npm_config_update_notifier: 'false',
      NODE_COMPILE_CACHE: COMPILE_CACHE,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
      PETSTORE_API_KEYS: KEY,
      LOG_LEVEL: 'info',
    },
  });
  let out = '';
  npm.stdout!.on('data', (d) => (out += d));
  npm.stderr!.on('data', (d) => (out += d));
  const exited = once(npm, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let started: number[] = [];
  t.after(() => {
    // Only the processes this test started, by pid: npm and what it ran, even if they outlived npm.
    for (const pid of [npm.pid!, ...started]) if (processStat(pid) !== undefined) process.kill(pid, 'SIGKILL');
    npm.stdout!.destroy();
    npm.stderr!.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  await until(`npm start serves /healthz: ${out}`, START_MS, async () => {
    if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}: ${out}`);
    return (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok === true;
  });
  started = descendants(npm.pid!);
  const service = started.find((pid) => program(pid) === 'node' && cmdline(pid).includes('src/main.ts'));
  assert.ok(service !== undefined, 'the service is a descendant of npm');
  return { npm, service, port, exited, output: () => out };
}

/** The service drained and exited 0 (npm reports its code), npm exited with it, and the port is free. */
async function assertStoppedCleanly(s: NpmStart): Promise<void> {
  await until('the service process ended', STOP_MS, () => processStat(s.service) === undefined);
  const [code, signal] = await s.exited;
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, s.output());
  assert.equal(s.output().match(/shut down cleanly/g)?.length, 1, s.output());
  assert.equal(await accepts(s.port), false, 'the port is free');
}

// The three starts run side by side: each waits mostly on npm and node starting.
describe('npm start stops cleanly whichever of its processes a supervisor signals', { concurrency: true }, () => {
  test('SIGTERM to npm: the service drains and exits with it, not left running with PPID 1', async (t) => {
    const s = await npmStart(t);
    process.kill(s.npm.pid!, 'SIGTERM');
    await assertStoppedCleanly(s);
  });

  test('SIGTERM to the service: npm exits with its code', async (t) => {
    const s = await npmStart(t);
    process.kill(s.service, 'SIGTERM');
    await assertStoppedCleanly(s);
  });

  test('SIGTERM to both, as systemd signals every process of the unit: one clean shutdown', async (t) => {
    const s = await npmStart(t);
    process.kill(s.service, 'SIGTERM');
    process.kill(s.npm.pid!, 'SIGTERM');
    await assertStoppedCleanly(s);
  });
});
