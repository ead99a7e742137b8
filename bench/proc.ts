// CPU accounting from Linux /proc: how much CPU a server process used over a run, and how busy
// each core was. Parsing is pure (tested with made-up text in test/bench/proc.test.ts); the
// readers return undefined where /proc is missing, and the reports then say "n/a".
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';

/** One `cpuN` line of /proc/stat, in clock ticks (guest time is already inside user and nice). */
export interface CoreTimes {
  readonly user: number;
  readonly nice: number;
  readonly system: number;
  readonly idle: number;
  readonly iowait: number;
  readonly irq: number;
  readonly softirq: number;
  readonly steal: number;
}

/** The per-core lines of /proc/stat (`cpu0`, `cpu1`, …; not the aggregate `cpu` line), by core number. */
export function parseCoreTimes(procStat: string): Map<number, CoreTimes> {
  const cores = new Map<number, CoreTimes>();
  for (const line of procStat.split('\n')) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = m[2]!.trim().split(/\s+/).map(Number);
    cores.set(Number(m[1]), { user: user!, nice: nice!, system: system!, idle: idle!, iowait, irq, softirq, steal });
  }
  return cores;
}

/**
 * Share of the time between two samples of one core that it was busy: 1 − (idle + iowait) / total.
 * Busy is anyone's work, not only the server's (another tenant on the core counts too); steal
 * (the hypervisor running someone else) counts as busy, since the core was not free for us.
 */
export function busyShare(before: CoreTimes, after: CoreTimes): number {
  const total = (t: CoreTimes) => t.user + t.nice + t.system + t.idle + t.iowait + t.irq + t.softirq + t.steal;
  const elapsed = total(after) - total(before);
  if (!(elapsed > 0)) return NaN;
  const idle = after.idle + after.iowait - (before.idle + before.iowait);
  return 1 - idle / elapsed;
}

/** Fields of /proc/<pid>/stat that the bench reads. utime and stime in clock ticks. */
export interface PidStat {
  readonly comm: string;
  readonly utime: number;
  readonly stime: number;
}

/**
 * Parses /proc/<pid>/stat. Field 2, the command name, is in parentheses and may itself hold
 * spaces and parentheses, so the fields are counted from the last ')': the text after it starts
 * with field 3 (state), which makes utime (field 14) the 12th and stime (15) the 13th.
 */
export function parsePidStat(text: string): PidStat {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc/<pid>/stat line: ${text.slice(0, 80)}`);
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(rest[14 - 3]);
  const stime = Number(rest[15 - 3]);
  if (!Number.isInteger(utime) || !Number.isInteger(stime)) throw new Error(`no utime/stime in /proc/<pid>/stat line: ${text.slice(0, 80)}`);
  return { comm: text.slice(open + 1, close), utime, stime };
}

/** The first field of /proc/<pid>/task/<tid>/schedstat: nanoseconds this thread ran on a CPU. */
export function parseSchedstat(text: string): number {
  const ns = Number(text.trim().split(/\s+/)[0]);
  if (!Number.isFinite(ns)) throw new Error(`not a schedstat line: ${text.slice(0, 80)}`);
  return ns;
}

/** Whether a /proc/<pid>/status text shows a handler installed for signal number `signal` (its SigCgt mask). */
export function parseCatches(status: string, signal: number): boolean {
  const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  return mask !== undefined && ((BigInt(`0x${mask}`) >> BigInt(signal - 1)) & 1n) === 1n;
}

/** Whether process `pid` handles SIGINT itself now (false when it is gone or /proc cannot tell). */
export function catchesSigint(pid: number): boolean {
  try {
    return parseCatches(readFileSync(`/proc/${pid}/status`, 'utf8'), 2);
  } catch {
    return false;
  }
}

/**
 * CPU time of one process, in microseconds, by two counters:
 * - `statUs`: utime + stime of /proc/<pid>/stat (all threads), the figure the issue names. The
 *   kernel reports it in clock ticks (10 ms at the usual 100 Hz), so a short run at low load is
 *   only known to a tick per field.
 * - `schedUs`: the sum over the process's threads of /proc/<pid>/task/<tid>/schedstat's first field,
 *   the scheduler's own nanosecond count of time on a CPU. Same quantity, far finer grain; it
 *   misses only threads that ended between two samples (Node's helper threads live as long as
 *   the process). undefined when the kernel does not expose it.
 */
export interface ProcessCpu {
  readonly statUs: number;
  readonly schedUs: number | undefined;
}

export const CLOCK_TICKS_PER_SECOND = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim();
  return Number(out) > 0 ? Number(out) : 100;
})();

export function readProcessCpu(pid: number): ProcessCpu | undefined {
  let stat: PidStat;
  try {
    stat = parsePidStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
  let schedNs: number | undefined = 0;
  try {
    let threads = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        schedNs += parseSchedstat(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8'));
        threads++;
      } catch (err) {
        // A thread that ended between the listing and the read has nothing more to add.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    }
    // No thread's file at all: a kernel built without schedstat, not a process that never ran.
    if (threads === 0) schedNs = undefined;
  } catch {
    schedNs = undefined;
  }
  return { statUs: ((stat.utime + stat.stime) * 1e6) / CLOCK_TICKS_PER_SECOND, schedUs: schedNs === undefined ? undefined : schedNs / 1000 };
}

export function readCoreTimes(): Map<number, CoreTimes> | undefined {
  try {
    return parseCoreTimes(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` is the node binary itself. Servers start as `taskset -c N node …`; taskset sets
 * the affinity and execs node, so the PID spawn returns is node's — this checks that, since CPU
 * time read from a wrapper's PID would be the wrapper's.
 */
export function isNodeProcess(pid: number, execPath: string): boolean | undefined {
  try {
    return realpathSync(readlinkSync(`/proc/${pid}/exe`)) === realpathSync(execPath);
  } catch {
    return undefined;
  }
}
