import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** After the service closes its side, how long it keeps reading what the client still sends. */
export const LINGER_MS = 2000;
/** …and how much of it at most; then it stops reading and only waits out the rest of LINGER_MS. */
const LINGER_BYTES = 1024 * 1024;

const LINGERING = Symbol('lingering');

/** An error listener for a socket being given up on: its errors (a reset) change nothing. */
export function ignoreSocketError(): void {}

interface LingeringSocket extends Socket {
  [LINGERING]?: true;
}

/**
 * Closes a connection in stages (RFC 9112 §9.6): half-close after what was written, keep reading
 * (and discarding) so that a client still uploading reads the answer instead of a reset, stop
 * reading after LINGER_BYTES, close for good when the client does or after LINGER_MS.
 */
export function closeGracefully(socket: Socket): void {
  const s = socket as LingeringSocket;
  if (s.destroyed || s[LINGERING]) return;
  s[LINGERING] = true;
  s.on('error', ignoreSocketError);
  s.end();
  const readAtClose = s.bytesRead;
  const started = Date.now();
  const timer = setInterval(() => {
    if (Date.now() - started >= LINGER_MS) s.destroy();
    else if (s.bytesRead - readAtClose > LINGER_BYTES) s.pause();
  }, 100).unref();
  s.once('close', () => clearInterval(timer));
  // A socket node:http no longer reads (a CONNECT tunnel it handed over) is read here.
  if (s.readableFlowing !== true) s.resume();
}

/**
 * node:http destroys a connection as soon as a response that says `Connection: close` is written;
 * when the request body was not read (413, a body that failed to parse), the unread bytes make the
 * kernel send a reset that can reach the client before the answer. Such a connection closes
 * gracefully instead. (`destroySoon` is what node:http calls after such a response.)
 */
export function closeGracefullyAfter(res: ServerResponse): void {
  const socket = res.socket as Socket | null;
  // inject()'s sockets are no connection.
  if (socket === null || typeof socket.destroySoon !== 'function') return;
  socket.destroySoon = () => closeGracefully(socket);
}
