// Fallback load generator for machines without wrk: `connections` keep-alive loops for `seconds`,
// then the same BENCH-RESULT line wrk.lua prints. Slower than wrk (it is Node), so its figures
// understate fast servers; use it for --smoke, install wrk for real numbers.
//   node bench/loadgen.ts --connections=50 --seconds=10 URL   (env: BENCH_METHOD, BENCH_BODY, BENCH_AUTH)
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { connections: { type: 'string' }, seconds: { type: 'string' } } });
const url = new URL(positionals[0]);
const connections = Number(values.connections);
const until = performance.now() + Number(values.seconds) * 1000;
const method = process.env.BENCH_METHOD ?? 'GET';
const body = process.env.BENCH_BODY || undefined;
const headers: Record<string, string> = {};
if (process.env.BENCH_AUTH) headers.authorization = process.env.BENCH_AUTH;
if (body) headers['content-type'] = 'application/json';

const agent = new Agent({ keepAlive: true, maxSockets: connections });
const latencies: number[] = [];
let non2xx = 0;
let socketErrors = 0;

function once(): Promise<void> {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(url, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => {
        latencies.push((performance.now() - started) * 1000);
        if (res.statusCode! >= 400) non2xx++;
        resolve();
      });
    });
    req.on('error', () => {
      socketErrors++;
      resolve();
    });
    req.end(body);
  });
}

async function loop(): Promise<void> {
  while (performance.now() < until) await once();
}

const started = performance.now();
await Promise.all(Array.from({ length: connections }, loop));
const durationUs = Math.round((performance.now() - started) * 1000);
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
process.stdout.write(
  `BENCH-RESULT ${JSON.stringify({ requests: latencies.length, durationUs, p50Us: at(0.5), p99Us: at(0.99), maxUs: Math.round(latencies.at(-1) ?? 0), non2xx, socketErrors })}\n`,
);
