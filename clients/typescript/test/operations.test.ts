// Every operation of openapi.json is reachable through the client as the document describes it. When an
// operation is added to the document (and the generated files regenerated), this fails — as does the
// type check of src/operations.ts — until METHODS names its resource and method.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { OPENAPI_JSON } from '../scripts/generate.ts';
import { Petstore } from '../src/index.ts';
import { HEADER_OPTIONS, iterateName, METHODS } from '../src/operations.ts';
import { ROUTES } from '../src/routes.ts';
import { fakeFetch, json } from './helpers/fake-fetch.ts';

// biome-ignore lint/suspicious/noExplicitAny: the test walks the OpenAPI document as untyped JSON.
type Json = Record<string, any>;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

async function documentOperations(): Promise<{ id: string; method: string; path: string; op: Json }[]> {
  const doc = JSON.parse(await readFile(OPENAPI_JSON, 'utf8')) as Json;
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m] !== undefined).map((m) => ({ id: item[m].operationId as string, method: m.toUpperCase(), path, op: item[m] as Json })),
  );
}

function successOf(op: Json): Response {
  const status = Number(Object.keys(op.responses).find((s) => s.startsWith('2')));
  return status === 204 ? new Response(null, { status }) : json(status, op.parameters?.some((p: Json) => p.name === 'cursor') ? [] : {});
}

type Client = Record<string, Record<string, ((...args: unknown[]) => Promise<unknown>) & { withResponse?: unknown }>>;

/** Arguments for a call of `op`: 7, 8, … for its path parameters, `{}` for its input, then `options`. */
function argsFor(path: string, op: Json, options?: object): unknown[] {
  const args: unknown[] = [...path.matchAll(/\{([^}]+)\}/g)].map((_, i) => 7 + i);
  // A body of bytes (a photo) is given as bytes, an import's file with its type; a JSON body or a query as an object.
  if (op.operationId === 'createImport') args.push({ file: new Uint8Array([0x7b, 0x7d]), type: 'application/x-ndjson' });
  else if (op.requestBody !== undefined && op.requestBody.content['application/json'] === undefined) args.push(new Uint8Array([0xff, 0xd8, 0xff]));
  else if (op.requestBody !== undefined || op.parameters?.some((p: Json) => p.in === 'query')) args.push({});
  if (options) args.push(options);
  return args;
}

test('every operation in openapi.json is a client method that sends its method and path', async () => {
  const ops = await documentOperations();
  assert.ok(ops.length >= 8);
  for (const { id, method, path, op } of ops) {
    const name = (METHODS as Record<string, string>)[id];
    assert.ok(name, `operation ${id} (${method} ${path}) has no client method: add it to METHODS in src/operations.ts`);
    const [resource, fn] = name.split('.') as [string, string];
    const { fetch, sent } = fakeFetch([successOf(op)]);
    const client = new Petstore({ baseUrl: 'http://petstore.test/v1', apiKey: 'k', fetch }) as unknown as Client;
    assert.equal(typeof client[resource]?.[fn], 'function', `petstore.${name} exists for ${id}`);
    assert.equal(typeof client[resource]![fn]!.withResponse, 'function', `petstore.${name}.withResponse exists`);
    const args = argsFor(path, op);
    await client[resource]![fn]!(...args);
    assert.equal(sent.length, 1, `${id}: one request`);
    assert.equal(sent[0]!.method, method, `${id}: HTTP method`);
    assert.equal(sent[0]!.url.pathname, `/v1${path.replace(/\{[^}]+\}/g, () => String(args.shift()))}`, `${id}: path`);
  }
});

test('every request header an operation documents is an option, sent as that header; the options of other headers are refused', async () => {
  for (const { id, path, op } of await documentOperations()) {
    const documented: string[] = (op.parameters ?? []).filter((p: Json) => p.in === 'header').map((p: Json) => String(p.name).toLowerCase());
    for (const header of documented) assert.ok(header in HEADER_OPTIONS, `${id} documents ${header}: add its option to HEADER_OPTIONS in src/operations.ts`);
    const [resource, fn] = (METHODS as Record<string, string>)[id]!.split('.') as [string, string];
    for (const [header, option] of Object.entries(HEADER_OPTIONS)) {
      const { fetch, sent } = fakeFetch([successOf(op)]);
      const client = new Petstore({ baseUrl: 'http://petstore.test/v1', apiKey: 'k', fetch }) as unknown as Client;
      const call = client[resource]![fn]!(...argsFor(path, op, { [option]: '"v-1"' }));
      if (documented.includes(header)) {
        await call;
        assert.equal(sent[0]!.headers.get(header), '"v-1"', `${id}: ${option} is sent as ${header}`);
      } else {
        await assert.rejects(call, TypeError, `${id}: ${option} is refused`);
        assert.equal(sent.length, 0);
      }
    }
  }
});

test('every paged listing (a cursor parameter) also has its iterate method, and only those', async () => {
  for (const { id, op } of await documentOperations()) {
    const [resource, fn] = (METHODS as Record<string, string>)[id]!.split('.') as [string, string];
    const client = new Petstore({ baseUrl: 'http://petstore.test/v1', apiKey: 'k', fetch: fakeFetch([json(200, [])]).fetch }) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    const paged = op.parameters?.some((p: Json) => p.in === 'query' && p.name === 'cursor') === true;
    if (paged) assert.equal(typeof client[resource]![iterateName(fn)], 'function', `${id}: ${resource}.${iterateName(fn)}`);
    else if (fn.startsWith('list')) assert.ok(!(iterateName(fn) in client[resource]!), `${id} is not paged: no ${iterateName(fn)}`);
  }
});

test('METHODS names only operations of the document, each once, as resource.method', async () => {
  const ids = new Set((await documentOperations()).map((o) => o.id));
  const names = new Set<string>();
  for (const [id, name] of Object.entries(METHODS)) {
    assert.ok(ids.has(id), `METHODS names ${id}, which openapi.json no longer has`);
    assert.match(name, /^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/);
    const [resource, fn] = name.split('.') as [string, string];
    for (const method of fn.startsWith('list') ? [fn, iterateName(fn)] : [fn]) {
      assert.ok(!names.has(`${resource}.${method}`), `${resource}.${method} is named twice`);
      names.add(`${resource}.${method}`);
    }
  }
});

test('iterateName derives iterate… from list… and refuses other names', () => {
  assert.equal(iterateName('list'), 'iterate');
  assert.equal(iterateName('listDeliveries'), 'iterateDeliveries');
  assert.throws(() => iterateName('search'), /must be named list/);
});

test("the package README's method table names every method", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  for (const [id, name] of Object.entries(METHODS)) {
    const [resource, fn] = name.split('.') as [string, string];
    const row = readme.split('\n').find((line) => line.includes(`\`petstore.${name}(`) && line.includes(`| ${id}`));
    assert.ok(row, `README.md has a row for petstore.${name} (${id})`);
    if (ROUTES[id as keyof typeof ROUTES].paged) assert.ok(row.includes(`petstore.${resource}.${iterateName(fn)}(`), row);
  }
});
