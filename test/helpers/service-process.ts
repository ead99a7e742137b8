// Runs the real service (`node src/main.ts`) as a child process, as an operator would, and stops it
// (by its pid) when the test ends.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceProcess {
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts the service on a free port of 127.0.0.1 and resolves once it listens (seen in its
 * `Server listening at …` log line, so LOG_LEVEL must stay at info or below).
 */
export async function startService(env: Record<string, string>, timeoutMs = 20_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(child.pid!, 'SIGKILL'); // never leave it running: it would keep the test process alive
      reject(new Error(`service did not listen within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${output}`));
    });
  });
  // Keep draining the pipes so a chatty log never blocks the child.
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    origin,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      process.kill(child.pid!, 'SIGTERM');
      const timer = setTimeout(() => child.exitCode === null && process.kill(child.pid!, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
