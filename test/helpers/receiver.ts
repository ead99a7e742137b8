// A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every request and
// answers as the test says (a status, or never).
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** performance.now() when the request arrived. */
  readonly at: number;
}

/** A status to answer with (and a body), or 'hang': never answer (the sender's timeout ends the attempt). */
export type Answer = number | { status: number; body?: string; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  /** Resolves once `count` requests (matching `filter`) have arrived; fails after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number, filter?: (r: Received) => boolean): Promise<Received[]>;
  /** Starts listening (again) on the same port. */
  listen(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(
  t: TestContext,
  answer: (r: Received, n: number) => Answer = () => 200,
  options: { port?: number; listening?: boolean } = {},
): Promise<Receiver> {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  let server: Server | undefined;
  let port = options.port ?? 0;
  const listen = async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const r = { path: req.url ?? '/', headers: req.headers, body, at: performance.now() };
        received.push(r);
        const a = answer(r, received.length);
        for (const w of waiters) w();
        if (a === 'hang') return;
        const { status, body: text = 'ok', headers = {} } = typeof a === 'number' ? { status: a } : a;
        res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(text);
      });
    });
    server.keepAliveTimeout = 60_000;
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  };
  const close = async () => {
    if (!server?.listening) return;
    const s = server;
    s.closeAllConnections();
    s.close();
    await once(s, 'close');
  };
  if (options.listening !== false) await listen();
  t.after(close);
  return {
    get url() {
      return `http://127.0.0.1:${port}/hooks`;
    },
    get port() {
      return port;
    },
    received,
    listen,
    close,
    waitFor(count, timeoutMs = 10_000, filter = () => true) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const matching = received.filter(filter);
          if (matching.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(matching);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} webhook requests within ${timeoutMs} ms, got ${received.filter(filter).length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

/** Polls `probe` until it returns a value other than undefined; fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'the condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
