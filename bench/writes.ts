// `npm run bench -- --writes`: durable creates (POST /v1/pets, 201) at 1 and at 50 connections on
// SQLite and on PostgreSQL, and on PostgreSQL with two service instances on one database — the
// figures of issue 21 (docs/performance.md, "Writes"). Both engines commit durably: SQLite with
// synchronous=FULL, PostgreSQL with fsync and synchronous_commit on (bench/postgres.ts). Rounds
// are interleaved; each run records the service processes' CPU time, each core's busy share and
// the load average.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { DatabaseConfig } from '../src/config.ts';
import { runLoad } from './load.ts';
import { openBenchPostgres } from './postgres.ts';
import { CPUS, freePort, npmStart, startServer, type Server } from './processes.ts';
import { busyShare, readCoreTimes, readProcessCpu } from './proc.ts';
import { seed } from './seed.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BODY = JSON.stringify({ name: 'Bench', categoryId: 2, status: 'available' });

interface Setup {
  readonly engine: 'sqlite' | 'postgres';
  readonly instances: number;
  readonly connections: number;
}

interface Run extends Setup {
  readonly round: number;
  readonly perSecond: number;
  readonly cpuUsPerCreate: number;
  readonly errors: number;
  readonly p99Ms: number;
  readonly cores: readonly number[];
  readonly load1: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function benchWrites(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: { writes: { type: 'boolean' }, duration: { type: 'string', default: '8' }, rounds: { type: 'string', default: '3' } },
  });
  const seconds = Number(values.duration);
  const rounds = Number(values.rounds);
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-writes-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const pg = await openBenchPostgres(process.env);
    cleanups.push(() => pg.close());
    const dbs: Record<Setup['engine'], DatabaseConfig> = {
      sqlite: { engine: 'sqlite', path: join(dir, 'bench.db') },
      postgres: { engine: 'postgres', url: pg.url, poolSize: 10, statementTimeoutMs: 5000 },
    };
    const keys = new Map<Setup['engine'], string>();
    for (const [engine, db] of Object.entries(dbs) as [Setup['engine'], DatabaseConfig][]) keys.set(engine, (await seed(db, 1000)).key);

    const start = async (engine: Setup['engine']): Promise<Server> => {
      const port = await freePort();
      const { env, flags } = npmStart(ROOT);
      const db = dbs[engine];
      const server = await startServer(
        `${engine}-${port}`,
        [process.execPath, ...flags, join(ROOT, 'src/main.ts')],
        {
          ...env,
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          DATABASE_URL: db.engine === 'sqlite' ? `sqlite:${db.path}` : db.url,
          HOST: '127.0.0.1',
          PORT: String(port),
          LOG_LEVEL: 'warn',
          RATE_LIMIT_PER_MINUTE: '0',
          AUTH_FAILURE_LIMIT_PER_MINUTE: '0',
        },
        port,
      );
      cleanups.push(() => server.stop());
      return server;
    };
    const servers = { sqlite: [await start('sqlite')], postgres: [await start('postgres'), await start('postgres')] };
    const setups: Setup[] = [
      { engine: 'sqlite', instances: 1, connections: 1 },
      { engine: 'sqlite', instances: 1, connections: 50 },
      { engine: 'postgres', instances: 1, connections: 1 },
      { engine: 'postgres', instances: 1, connections: 50 },
      { engine: 'postgres', instances: 2, connections: 50 },
    ];
    const runs: Run[] = [];
    for (let round = 0; round <= rounds; round++) {
      for (const setup of round % 2 === 0 ? setups : [...setups].reverse()) {
        const run = await measure(setup, servers[setup.engine].slice(0, setup.instances), keys.get(setup.engine)!, round === 0 ? 1 : seconds);
        if (round === 0) continue; // warm-up
        runs.push({ ...run, round });
        log(
          `bench: round ${round}/${rounds} ${setup.engine} ×${setup.instances} c=${setup.connections}: ${Math.round(run.perSecond)} creates/s, ${(run.cpuUsPerCreate / 1000).toFixed(3)} ms CPU/create, errors ${run.errors}`,
        );
      }
    }
    process.stdout.write(`${report(setups, runs)}\n`);
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch((err) => log(`cleanup: ${(err as Error).message}`));
  }
}

async function measure(setup: Setup, servers: readonly Server[], key: string, seconds: number): Promise<Omit<Run, 'round'>> {
  const cpuBefore = servers.map((s) => readProcessCpu(s.pid)?.statUs ?? 0);
  const coresBefore = readCoreTimes();
  const load1 = loadavg()[0];
  // The connections are split between the instances, each with its own generator.
  const share = Math.max(1, Math.round(setup.connections / servers.length));
  const results = await Promise.all(
    servers.map((s, i) =>
      runLoad({
        url: `http://127.0.0.1:${s.port}/v1/pets`,
        method: 'POST',
        body: BODY,
        authorization: `Bearer ${key}`,
        connections: share,
        seconds,
        cpu: i % Math.max(1, CPUS),
      }),
    ),
  );
  const coresAfter = readCoreTimes();
  const cpuUs = servers.reduce((sum, s, i) => sum + ((readProcessCpu(s.pid)?.statUs ?? 0) - cpuBefore[i]), 0);
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const perSecond = results.reduce((n, r) => n + r.requests / (r.durationUs / 1e6), 0);
  const cores = coresBefore && coresAfter ? [...coresAfter.keys()].sort((a, b) => a - b).map((c) => busyShare(coresBefore.get(c)!, coresAfter.get(c)!)) : [];
  return {
    ...setup,
    perSecond,
    cpuUsPerCreate: requests === 0 ? 0 : cpuUs / requests,
    errors: results.reduce((n, r) => n + r.non2xx + r.socketErrors, 0),
    p99Ms: Math.max(...results.map((r) => r.p99Us)) / 1000,
    cores,
    load1,
  };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (x: number) => `${Math.round(x * 100)} %`;

/** One markdown row per setup (medians, with the range), then the targets judged on the medians. */
export function report(setups: readonly Setup[], runs: readonly Run[]): string {
  const of = (s: Setup) => runs.filter((r) => r.engine === s.engine && r.instances === s.instances && r.connections === s.connections);
  const rows = setups.map((s) => {
    const rs = of(s);
    const rates = rs.map((r) => r.perSecond);
    return {
      s,
      rate: median(rates),
      cpu: median(rs.map((r) => r.cpuUsPerCreate)),
      line: `| ${s.engine} | ${s.instances} | ${s.connections} | ${Math.round(median(rates)).toLocaleString('en')} (${Math.round(Math.min(...rates))}–${Math.round(Math.max(...rates))}) | ${(median(rs.map((r) => r.cpuUsPerCreate)) / 1000).toFixed(3)} | ${median(rs.map((r) => r.p99Ms)).toFixed(1)} | ${rs.reduce((n, r) => n + r.errors, 0)} | ${rs.map((r) => r.cores.map(pct).join(' / ')).join('; ')} | ${rs.map((r) => r.load1.toFixed(1)).join(', ')} |`,
    };
  });
  const find = (engine: Setup['engine'], instances: number, connections: number) =>
    rows.find((r) => r.s.engine === engine && r.s.instances === instances && r.s.connections === connections)!;
  const pg1 = find('postgres', 1, 1);
  const pg50 = find('postgres', 1, 50);
  const sq50 = find('sqlite', 1, 50);
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  return [
    '| engine | instances | connections | creates/s median (range) | service CPU ms/create | p99 ms | errors | core busy shares per run | load average (1 min) per run |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => r.line),
    '',
    `- PostgreSQL at 50 connections ÷ at 1: ${(pg50.rate / pg1.rate).toFixed(1)}× (target ≥ 5×: ${verdict(pg50.rate >= 5 * pg1.rate)})`,
    `- PostgreSQL ÷ SQLite at 50 connections: ${pct(pg50.rate / sq50.rate)} (target ≥ 50 %: ${verdict(pg50.rate >= 0.5 * sq50.rate)})`,
    `- service CPU per create, PostgreSQL ÷ SQLite at 50 connections: ${(pg50.cpu / sq50.cpu).toFixed(2)}× (target ≤ 2×: ${verdict(pg50.cpu <= 2 * sq50.cpu)})`,
  ].join('\n');
}
