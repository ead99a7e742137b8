import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './ports.ts';

/**
 * Why Redis tests cannot run here, or undefined when they can. In CI (.ci/run sets CI and installs
 * redis-server) a missing binary is not a reason to skip: the tests run and fail on it.
 */
export function redisSkipReason(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (!probe.error || process.env.CI) return undefined;
  return 'redis-server is not installed (apt-get install redis-server); CI runs these tests';
}

/** Starts a throw-away redis-server on 127.0.0.1 and a free port, without persistence. */
export async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const deadline = Date.now() + 5000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('redis-server did not start within 5 s');
    }
    await sleep(25);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
