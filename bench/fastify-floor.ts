// What Fastify itself costs on this machine: the benchmarked routes, with the same status codes
// and bytes as bench/baseline.ts, as a plain Fastify app — schemas for validation and
// serialization, an onRequest key check, pets from memory — without anything the service adds
// (database, request ids, telemetry, deprecation headers, rate limits, logging). The issue's
// "Fastify, in-memory Map" column. Run as a target with `npm run bench -- --floor`.
//   node bench/fastify-floor.ts --port P --key K --size N --thumbnail FILE
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import Fastify from 'fastify';
import { parseArgs } from 'node:util';
import { STATUSES, fixturePage, fixturePet, type FixturePet } from './fixture.ts';

const { values } = parseArgs({
  options: { port: { type: 'string' }, key: { type: 'string' }, size: { type: 'string' }, thumbnail: { type: 'string' } },
});
const size = Number(values.size);
const expectedAuth = `Bearer ${values.key}`;

const JSON_TYPE = 'application/json; charset=utf-8';
const UNAUTHORIZED = JSON.stringify({ code: 'unauthorized', message: 'missing Authorization header; send Authorization: Bearer <API key>', status: 401 });
const NOT_FOUND = JSON.stringify({ code: 'not_found', message: 'not found', status: 404 });
const Pet = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    categoryId: { type: 'integer' },
    status: { type: 'string', enum: STATUSES },
    tags: { type: 'array', items: { type: 'string' } },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
  required: ['id', 'name', 'categoryId', 'status'],
} as const;

const app = Fastify({ logger: false, keepAliveTimeout: 60_000 });
app.addHook('onRequest', (request, reply, done) => {
  if (request.url.startsWith('/v1/') && !request.url.startsWith('/v1/photos/') && request.headers.authorization !== expectedAuth) {
    reply.code(401).header('www-authenticate', 'Bearer realm="petstore"').type(JSON_TYPE).send(UNAUTHORIZED);
    return;
  }
  done();
});

const pages = new Map<string, { body: string; link?: string }>();
app.get<{ Querystring: { limit?: number; status?: string; cursor?: string } }>(
  '/v1/pets',
  {
    schema: {
      querystring: {
        type: 'object',
        properties: { limit: { type: 'integer', minimum: 1, maximum: 100 }, status: { type: 'string', enum: STATUSES }, cursor: { type: 'string' } },
        additionalProperties: false,
      },
      response: { 200: { type: 'array', items: Pet } },
    },
  },
  async (request, reply) => {
    // Like the baseline, a cursor is not decoded: a deep page is answered with page 1's bytes.
    const key = `${request.query.limit ?? 20};${request.query.status ?? ''}`;
    let page = pages.get(key);
    if (page === undefined) {
      page = fixturePage(size, request.query.limit ?? 20, request.query.status)!;
      pages.set(key, page);
    }
    if (page.link !== undefined) reply.header('link', page.link);
    return reply.type(JSON_TYPE).send(page.body);
  },
);

const created = new Map<number, FixturePet>();
let nextId = size + 1;
app.post<{ Body: { name: string; categoryId: number; status?: FixturePet['status'] } }>(
  '/v1/pets',
  {
    schema: {
      body: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1 }, categoryId: { type: 'integer', minimum: 1 }, status: { type: 'string', enum: STATUSES } },
        required: ['name', 'categoryId'],
        additionalProperties: false,
      },
      response: { 201: Pet },
    },
  },
  async (request, reply) => {
    const at = new Date().toISOString();
    const pet: FixturePet = {
      id: nextId++,
      name: request.body.name,
      categoryId: request.body.categoryId,
      status: request.body.status ?? 'available',
      tags: [],
      createdAt: at,
      updatedAt: at,
    };
    created.set(pet.id, pet);
    return reply.code(201).header('location', `/v1/pets/${pet.id}`).send(pet);
  },
);

app.get<{ Params: { petId: number } }>(
  '/v1/pets/:petId',
  { schema: { params: { type: 'object', properties: { petId: { type: 'integer', minimum: 1 } }, required: ['petId'] }, response: { 200: Pet } } },
  async (request, reply) => {
    const id = request.params.petId;
    const pet = id <= size ? fixturePet(id) : created.get(id);
    return pet ?? reply.code(404).type(JSON_TYPE).send(NOT_FOUND);
  },
);

// The thumbnail (public): the file read each time, as a static-file plugin would.
const thumbnail = values.thumbnail;
if (thumbnail !== undefined) {
  app.get(`/v1/photos/${basename(thumbnail).replace(/-thumb\.webp$/, '')}/thumb`, async (_request, reply) =>
    reply
      .type('image/webp')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(await readFile(thumbnail)),
  );
}

app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(values.port), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
