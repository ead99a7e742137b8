// What building an app costs in one process, as the tests build them (docs/performance.md, "The test
// suite"): CPU time of the first app (compilers warm up), of each later one, and of a new in-memory
// SQLite database. A figure, not a test.
//
//   node bench/app-build.ts [--apps 41] [--databases 200]
//
// An app: a new in-memory SQLite storage, buildApp with the default configuration, ready, close.
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { Metrics } from '../src/http/ops/metrics.ts';
import { openSqlite } from '../src/storage/sqlite/sqlite.storage.ts';

const { values } = parseArgs({ options: { apps: { type: 'string', default: '41' }, databases: { type: 'string', default: '200' } } });
const apps = Number(values.apps);
const databases = Number(values.databases);

const cpuMs = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};

async function oneApp(): Promise<void> {
  const storage = openSqlite({ path: ':memory:' });
  const app = await buildApp({ config: loadConfig({}), storage, metrics: new Metrics(storage, { processMetrics: false }) });
  await app.ready();
  await app.close();
  await storage.close();
}

const start = process.cpuUsage();
await oneApp();
const first = cpuMs(start);
const later = process.cpuUsage();
for (let i = 1; i < apps; i++) await oneApp();
const perApp = cpuMs(later) / Math.max(1, apps - 1);
const opened = process.cpuUsage();
for (let i = 0; i < databases; i++) await openSqlite({ path: ':memory:' }).close();
const perDatabase = cpuMs(opened) / Math.max(1, databases);

console.log(
  `first app ${first.toFixed(0)} ms CPU, each later app ${perApp.toFixed(1)} ms (${apps - 1}), each in-memory database ${perDatabase.toFixed(2)} ms (${databases})`,
);
