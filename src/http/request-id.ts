import { randomFillSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

// An incoming id is echoed into logs and headers, so only short ids of a log-safe charset are
// honoured (no spaces, quotes, control characters or CRLF); anything else gets a fresh UUID.
export const REQUEST_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/;

export function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : freshUuid();
}

// Fresh ids are random (version 4) UUIDs from the CSPRNG, made 256 at a time: one random fill,
// one formatting pass into ASCII and one flat string for the batch, of which each id is a slice.
// crypto.randomUUID() builds each id from concatenated pieces that node:http flattens again when
// it validates the header; what that costs is in docs/performance.md.
const BATCH = 256;
const random = Buffer.alloc(BATCH * 16);
const text = Buffer.alloc(BATCH * 36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');
let batch = '';
let next = BATCH;

/** A random (version 4, RFC 9562) UUID in its lowercase 36-character form. */
export function freshUuid(): string {
  if (next === BATCH) refill();
  const at = next++ * 36;
  return batch.slice(at, at + 36);
}

function refill(): void {
  randomFillSync(random);
  let o = 0;
  for (let r = 0; r < random.length; r += 16) {
    random[r + 6] = (random[r + 6] & 0x0f) | 0x40; // version 4
    random[r + 8] = (random[r + 8] & 0x3f) | 0x80; // variant 10xx
    for (let b = 0; b < 16; b++) {
      if (b === 4 || b === 6 || b === 8 || b === 10) text[o++] = 0x2d; // '-'
      const v = random[r + b];
      text[o++] = HEX[v >> 4];
      text[o++] = HEX[v & 15];
    }
  }
  batch = text.toString('latin1');
  next = 0;
}

/**
 * First hook of all, so every response — 404, 405, 401, errors — names the request and tells
 * browsers not to sniff content types. (Fastify sends no X-Powered-By.)
 */
export function registerRequestId(app: FastifyInstance): void {
  // A callback hook, not an async one: no promise per request for two header writes.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    done();
  });
}
