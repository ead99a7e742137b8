// Generates the client's two files that come from the OpenAPI document (the repository's committed
// openapi.json): src/schema.ts, the types (openapi-typescript), and src/routes.ts, each operation's
// HTTP method, path, input, paging, request headers and whether its answers carry an ETag, and the
// error statuses the document lists. Run by `npm run sdk:generate` (and `npm run openapi`);
// test/generated.test.ts calls `generate()` in memory and fails when the committed files differ.
import { readFile, writeFile } from 'node:fs/promises';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

const HERE = new URL('../', import.meta.url);
export const OPENAPI_JSON = new URL('../../openapi.json', HERE);
export const OUTPUTS = { schema: new URL('src/schema.ts', HERE), routes: new URL('src/routes.ts', HERE) } as const;

const REGENERATE = ' * Regenerate with `npm run sdk:generate` after openapi.json changes (`npm run openapi` does both).\n */\n\n';
const SCHEMA_HEADER = COMMENT_HEADER.replace(/ \*\/\n+$/, REGENERATE);
const ROUTES_HEADER = `/**\n * Generated from openapi.json by scripts/generate.ts: do not edit.\n${REGENERATE}`;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: the generator walks the OpenAPI document as untyped JSON.
  readonly [key: string]: any;
}

/** What the client needs at run time about one operation; the types come from schema.ts. */
interface Route {
  readonly method: Uppercase<(typeof HTTP_METHODS)[number]>;
  readonly path: string;
  /** Where the call's input goes: a JSON body, a body of bytes (an image: no JSON media type), the query string, or nowhere (no input). */
  readonly input: 'body' | 'binary' | 'query' | null;
  /** A listing paged with `cursor` and `Link: rel="next"`. */
  readonly paged: boolean;
  /** The request header parameters the operation documents (lower case): `idempotency-key`, `if-match`, `if-none-match`. */
  readonly headers: readonly string[];
  /** Every answer it succeeds with (2xx, and 304 to a conditional read) documents an `ETag`. */
  readonly etag: boolean;
  /** Its 2xx answers are bytes of another media type (a photo), not JSON. */
  readonly binary: boolean;
  /** Its 2xx answer is CSV text (an export, the dealer's book), of any length: handed over as a stream of text, not read whole. */
  readonly stream: boolean;
}

function resolve(doc: Json, node: Json): Json {
  if (typeof node.$ref !== 'string') return node;
  return node.$ref
    .slice(2)
    .split('/')
    .reduce((at: Json, key: string) => at[key.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
}

export function routesOf(doc: Json): Record<string, Route> {
  const routes: Record<string, Route> = {};
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (op === undefined) continue;
      if (typeof op.operationId !== 'string') throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => resolve(doc, p));
      const query = params.filter((p) => p.in === 'query').map((p) => p.name as string);
      const json = (content: Json | undefined) => content?.['application/json'] !== undefined;
      const input = op.requestBody !== undefined ? (json(op.requestBody.content) ? 'body' : 'binary') : query.length > 0 ? 'query' : null;
      if (input === 'body' && query.length > 0) throw new Error(`${op.operationId} takes both a body and query parameters; the client passes one input object`);
      const headers = params.filter((p) => p.in === 'header').map((p) => String(p.name).toLowerCase());
      const answers = Object.entries(op.responses as Json)
        .filter(([status]) => /^2\d\d$/.test(status) || status === '304')
        .map(([, response]) => resolve(doc, response as Json));
      const etag = answers.length > 0 && answers.every((r) => Object.keys(r.headers ?? {}).some((h) => h.toLowerCase() === 'etag'));
      const stream = answers.some((r) => r.content?.['text/csv'] !== undefined);
      const binary = !stream && answers.some((r) => r.content !== undefined && !json(r.content));
      routes[op.operationId] = { method: method.toUpperCase() as Route['method'], path, input, paged: query.includes('cursor'), headers, etag, binary, stream };
    }
  }
  return routes;
}

/** Every 4xx and 5xx status some operation documents, ascending: what a PetstoreError with a documented code carries. */
export function errorStatusesOf(doc: Json): number[] {
  const statuses = new Set<number>();
  for (const item of Object.values(doc.paths as Json))
    for (const method of HTTP_METHODS)
      for (const [status, response] of Object.entries((item[method]?.responses ?? {}) as Json)) {
        if (/^[45]\d\d$/.test(status)) statuses.add(Number(status));
        // A `default` response covers several statuses: its examples (Error bodies) name each one.
        else if (status === 'default') for (const s of exampleStatuses(doc, response)) statuses.add(s);
      }
  return [...statuses].sort((a, b) => a - b);
}

/** The `status` of every example Error body of a response (a local $ref to components.responses is followed). */
function exampleStatuses(doc: Json, response: Json): number[] {
  const ref = response.$ref as string | undefined;
  const resolved: Json | undefined = ref ? doc.components?.responses?.[ref.replace('#/components/responses/', '')] : response;
  const examples = Object.values((resolved?.content?.['application/json']?.examples ?? {}) as Json) as Json[];
  return examples.map((e) => e.value?.status).filter((s): s is number => Number.isInteger(s) && s >= 400 && s < 600);
}

function routesSource(doc: Json): string {
  const q = JSON.stringify;
  const entries = Object.entries(routesOf(doc)).map(
    ([id, r]) =>
      `  ${id}: { method: ${q(r.method)}, path: ${q(r.path)}, input: ${q(r.input)}, paged: ${r.paged}, headers: ${q(r.headers)}, etag: ${r.etag}, binary: ${r.binary}, stream: ${r.stream} },`,
  );
  return (
    `${ROUTES_HEADER}export const ROUTES = {\n${entries.join('\n')}\n} as const;\n\n` +
    `/** Every error status (4xx, 5xx) the document lists for some operation. */\nexport const ERROR_STATUSES = ${q(errorStatusesOf(doc))} as const;\n`
  );
}

/** Both generated files' contents for the document `doc` (default: the committed openapi.json). */
export async function generate(doc?: Json): Promise<{ schema: string; routes: string }> {
  doc ??= JSON.parse(await readFile(OPENAPI_JSON, 'utf8')) as Json;
  // enumValues: the Error codes (and statuses) as run-time arrays too, so the client can tell a
  // documented code from anything else without a hand-kept list.
  const ast = await openapiTS(doc as OpenAPI3, { enumValues: true, silent: true });
  return { schema: SCHEMA_HEADER + astToString(ast), routes: routesSource(doc) };
}

if (import.meta.main) {
  const out = await generate();
  await writeFile(OUTPUTS.schema, out.schema);
  await writeFile(OUTPUTS.routes, out.routes);
  console.log(`wrote ${OUTPUTS.schema.pathname} and ${OUTPUTS.routes.pathname}`);
}
