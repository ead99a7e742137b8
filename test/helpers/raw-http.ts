// Raw HTTP/1.1 over a real connection, for what inject() cannot send: malformed messages,
// pipelining, CONNECT, several Host fields, bytes the parser refuses.
import { once } from 'node:events';
import { connect } from 'node:net';
import type { TestContext } from 'node:test';
import { buildTestApp, sharedTestApp, type TestApp, type TestAppOptions } from './app.ts';
import type { Engine } from './engines.ts';

/** The real app (rate limit off unless `env` sets it), listening on 127.0.0.1 on a free port. */
export async function listening(t: TestContext, options: TestAppOptions = {}): Promise<TestApp & { port: number }> {
  const built = await buildTestApp(t, { ...options, env: { RATE_LIMIT_PER_MINUTE: '0', ...options.env } });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  return { ...built, port: (built.app.server.address() as { port: number }).port };
}

/**
 * `listening`'s app shared by the tests of a suite (sharedTestApp: reset between them): call it in
 * the suite's body; the app listens from its first test on.
 */
export function sharedListening(engine: Engine = 'sqlite'): (t: TestContext) => Promise<TestApp & { port: number }> {
  const testApp = sharedTestApp(engine, { env: { RATE_LIMIT_PER_MINUTE: '0' } });
  let port: Promise<number> | undefined;
  return async (t) => {
    const built = await testApp(t);
    port ??= built.app.listen({ port: 0, host: '127.0.0.1' }).then(() => (built.app.server.address() as { port: number }).port);
    return { ...built, port: await port };
  };
}

export interface Exchange {
  /** Everything the server sent, as latin1 text. */
  readonly data: string;
  /** The server closed its side (FIN) within the wait. */
  readonly closedByServer: boolean;
}

/** Writes raw bytes (pieces 20 ms apart); resolves once the connection closed, or after `waitMs`. */
export async function exchange(port: number, pieces: string | string[], waitMs = 3000): Promise<Exchange> {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('latin1');
  let data = '';
  let closedByServer = false;
  socket.on('data', (d: string) => (data += d));
  socket.on('end', () => {
    closedByServer = true;
    socket.end();
  });
  socket.on('error', () => {});
  const closed = once(socket, 'close');
  await once(socket, 'connect');
  for (const piece of [pieces].flat()) {
    socket.write(piece);
    await new Promise((r) => setTimeout(r, 20));
  }
  await Promise.race([closed, new Promise((r) => setTimeout(r, waitMs))]);
  socket.destroy();
  return { data, closedByServer };
}
