// The practical ceiling: a bare node:http server answering the benchmarked routes with the same
// status codes and (for the seeded store) the same JSON bytes as the service, from memory, with a
// trivial bearer check. No framework, no validation library, no database.
// A photo's thumbnail it serves as a static-file server does: the file read from disk each time.
//   node bench/baseline.ts --port P --key K --size N --thumbnail FILE
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { fixturePage, fixturePet, type FixturePet } from './fixture.ts';

const { values } = parseArgs({
  options: { port: { type: 'string' }, key: { type: 'string' }, size: { type: 'string' }, thumbnail: { type: 'string' } },
});
const port = Number(values.port);
const expectedAuth = `Bearer ${values.key}`;
const size = Number(values.size);

const JSON_TYPE = 'application/json; charset=utf-8';
const UNAUTHORIZED = JSON.stringify({ code: 'unauthorized', message: 'missing Authorization header; send Authorization: Bearer <API key>', status: 401 });
const CHALLENGE = ['www-authenticate', 'Bearer realm="petstore"'];
const NOT_FOUND = JSON.stringify({ code: 'not_found', message: 'not found', status: 404 });
const BAD_REQUEST = JSON.stringify({ code: 'validation_failed', message: 'invalid request', status: 400 });

const created = new Map<number, FixturePet>();
let nextId = size + 1;
// Responses computed once per distinct URL and served from memory afterwards.
const listCache = new Map<string, { body: string; link?: string }>();

// Headers as a flat name, value, … list: an object literal spreading `extra` (of a different shape
// per call site) could land in V8's slow path in one process and not in the next, which made one
// baseline process up to 25 % slower than another (docs/performance.md, Method, "Scenarios").
function send(res: ServerResponse, status: number, body: string, extra?: readonly string[]): void {
  const headers: (string | number)[] = ['content-type', JSON_TYPE, 'content-length', Buffer.byteLength(body)];
  if (extra !== undefined) headers.push(...extra);
  res.writeHead(status, headers);
  res.end(body);
}

function list(url: string): { body: string; link?: string } | undefined {
  const hit = listCache.get(url);
  if (hit) return hit;
  const q = new URL(url, 'http://x').searchParams;
  const page = fixturePage(size, q.has('limit') ? Number(q.get('limit')) : 20, q.get('status') ?? undefined);
  if (page) listCache.set(url, page);
  return page;
}

function create(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let input: { name?: unknown; categoryId?: unknown; status?: unknown };
    try {
      input = JSON.parse(Buffer.concat(chunks).toString());
    } catch {
      return send(res, 400, BAD_REQUEST);
    }
    if (typeof input.name !== 'string' || !Number.isInteger(input.categoryId)) return send(res, 400, BAD_REQUEST);
    const pet: FixturePet = {
      id: nextId++,
      name: input.name,
      categoryId: input.categoryId as number,
      status: (input.status as FixturePet['status']) ?? 'available',
      tags: [],
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    };
    created.set(pet.id, pet);
    send(res, 201, JSON.stringify(pet), ['location', `/v1/pets/${pet.id}`]);
  });
}

// The thumbnail file is named <hash>-thumb.webp (bench/seed.ts); served at the service's URL for it.
const thumbnail = values.thumbnail;
const thumbnailUrl = thumbnail === undefined ? undefined : `/v1/photos/${basename(thumbnail).replace(/-thumb\.webp$/, '')}/thumb`;

/** What serve-static and nginx do per request: stat the file (for its length and validator), stream it. */
function serveFile(req: IncomingMessage, res: ServerResponse, path: string): void {
  const stat = statSync(path);
  const etag = `"${stat.size.toString(16)}-${stat.mtimeMs.toString(16)}"`;
  const headers = ['content-type', 'image/webp', 'cache-control', 'public, max-age=31536000, immutable', 'etag', etag];
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    return void res.end();
  }
  res.writeHead(200, [...headers, 'content-length', stat.size]);
  createReadStream(path).pipe(res);
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  if (url === '/healthz') return send(res, 200, '{"status":"ok"}');
  if (url === thumbnailUrl && req.method === 'GET') return serveFile(req, res, thumbnail!);
  if (req.headers.authorization !== expectedAuth) return send(res, 401, UNAUTHORIZED, CHALLENGE);
  if (url === '/v1/pets' || url.startsWith('/v1/pets?')) {
    if (req.method === 'POST') return create(req, res);
    const page = list(url);
    if (!page) return send(res, 400, BAD_REQUEST);
    return send(res, 200, page.body, page.link ? ['link', page.link] : undefined);
  }
  if (url.startsWith('/v1/pets/') && req.method === 'GET') {
    const id = Number(url.slice('/v1/pets/'.length));
    const pet = Number.isInteger(id) && id >= 1 ? (id <= size ? fixturePet(id) : created.get(id)) : undefined;
    return pet ? send(res, 200, JSON.stringify(pet)) : send(res, 404, NOT_FOUND);
  }
  send(res, 404, NOT_FOUND);
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
