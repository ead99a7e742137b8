// A TCP proxy that can play a network failure: `freeze()` stops forwarding bytes on every connection
// and leaves new ones unanswered (nothing is refused or closed, so only timeouts can notice); `thaw()`
// drops the frozen connections and forwards again; `dropNextResponse()` lets the next request through
// and closes its connection when the answer starts, so the server acted but the client never hears.
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  freeze(): void;
  thaw(): void;
  dropNextResponse(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let frozen = false;
  let dropNext = false;
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (frozen) return; // accepted, never answered
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (dropNext) {
        dropNext = false;
        client.destroy();
        upstream.destroy();
      } else if (!client.write(chunk)) {
        upstream.pause();
        client.once('drain', () => frozen || upstream.resume());
      }
    });
    upstream.on('end', () => client.end());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    freeze() {
      frozen = true;
      for (const s of sockets) s.pause();
    },
    thaw() {
      frozen = false;
      for (const s of sockets) s.destroy();
    },
    dropNextResponse() {
      dropNext = true;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
