// Starts the real service (src/main.ts) as a child process on 127.0.0.1 and a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
export const BOOTSTRAP_KEY = 'test-bootstrap-key-0123456789abcdef';
export const AUTH = { authorization: `Bearer ${BOOTSTRAP_KEY}` };

export interface ServerProcess {
  readonly proc: ChildProcess;
  readonly port: number;
  readonly url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  readonly exited: Promise<number | string>;
}

export async function startServer(env: Record<string, string>, timeoutMs = 15_000): Promise<ServerProcess> {
  const proc = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', PETSTORE_API_KEYS: BOOTSTRAP_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = once(proc, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.stdout!.off('data', check);
        resolve(Number(m[1]));
      }
    };
    proc.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${out}`));
    });
  });
  return { proc, port, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}
