import { PetstoreError } from './errors.ts';
import { linkTarget, type RateLimit } from './headers.ts';
import {
  type AutoPaging,
  type HeaderOptions,
  type ImportSource,
  iterateName,
  METHODS,
  type OperationId,
  type Page,
  type PetSearch,
  type RequestOptions,
  type Resource,
  type Resources,
} from './operations.ts';
import { ROUTES } from './routes.ts';
import { type Answer, positiveInteger, Transport, type TransportOptions } from './transport.ts';
import { signWebhook, verifyWebhook } from './webhooks.ts';

export type PetstoreOptions = TransportOptions;

type Route = (typeof ROUTES)[OperationId];
type Query = Readonly<Record<string, unknown>> | undefined;

const PATH_PARAM = /\{([^}]+)\}/g;

type CallOptions = RequestOptions & HeaderOptions;

/** Splits a call's arguments: path parameters, the input object (body or query), the options. */
function split(route: Route, args: readonly unknown[]): { path: string; input: unknown; options: CallOptions | undefined } {
  let i = 0;
  const path = route.path.replace(PATH_PARAM, (_, name: string) => {
    const value = args[i++];
    if (value === undefined || value === null || value === '') throw new TypeError(`Petstore: missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const input = route.input === null ? undefined : args[i++];
  return { path, input, options: args[i] as CallOptions | undefined };
}

const IMAGE_SIGNATURES: readonly [type: string, signature: readonly number[]][] = [
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
];

/** The media type of an image's bytes by their signature; `application/octet-stream` (which the service refuses) for anything else. */
export function imageType(head: Uint8Array): string {
  for (const [type, signature] of IMAGE_SIGNATURES) if (signature.every((b, i) => head[i] === b)) return type;
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  return head.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP' ? 'image/webp' : 'application/octet-stream';
}

/** The bytes of an ImageSource and their media type; a string is a file path, read with node:fs (Node only). */
async function imageBytes(source: unknown): Promise<{ data: Blob | Uint8Array; type: string }> {
  if (typeof source === 'string') {
    // Named through a variable: the module is Node's, and neither the types nor a browser bundle should need it.
    const fs = 'node:fs/promises';
    const { readFile } = (await import(fs)) as { readFile(path: string): Promise<Uint8Array> };
    source = await readFile(source);
  }
  if (source instanceof ArrayBuffer) source = new Uint8Array(source);
  if (source instanceof Uint8Array) return { data: source, type: imageType(source) };
  if (typeof Blob !== 'undefined' && source instanceof Blob) return { data: source, type: imageType(new Uint8Array(await source.slice(0, 12).arrayBuffer())) };
  throw new TypeError('Petstore: an image is a Uint8Array (a Buffer), an ArrayBuffer, a Blob or a file path');
}

/** An import's body as a stream (or its bytes as they are), its media type, and its query. */
async function importBody(source: ImportSource): Promise<{ bytes: { data: Blob | Uint8Array | ReadableStream<Uint8Array>; type: string }; query: Query }> {
  let file: unknown = source.file;
  if (typeof file === 'string') {
    const fs = 'node:fs';
    const { createReadStream } = (await import(fs)) as { createReadStream(path: string): AsyncIterable<Uint8Array> };
    file = createReadStream(file);
  }
  if (!(file instanceof Uint8Array) && !(typeof Blob !== 'undefined' && file instanceof Blob) && !(file instanceof ReadableStream)) {
    const chunks = (file as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    file = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await chunks.return?.();
      },
    });
  }
  const query = source.createCategories === undefined ? undefined : { createCategories: String(source.createCategories) };
  return { bytes: { data: file as Blob | Uint8Array | ReadableStream<Uint8Array>, type: source.type }, query };
}

function bind(transport: Transport, operation: OperationId, route: Route) {
  const call = async (args: readonly unknown[], query?: Query) => {
    const { path, input, options } = split(route, args);
    const file = operation === 'createImport' ? await importBody(input as ImportSource) : undefined;
    return transport.request({
      operation,
      route,
      path,
      query: query ?? file?.query ?? (route.input === 'query' ? (input as Query) : undefined),
      body: route.input === 'body' ? input : undefined,
      bytes: file?.bytes ?? (route.input === 'binary' ? await imageBytes(input) : undefined),
      binary: route.binary,
      stream: route.stream,
      options,
    });
  };
  // `withResponse()` beside each method: the same call, with the status, the headers and, where the
  // document promises one, the ETag. Only here is a missing ETag an error: a plain call does not need
  // it, and should not fail because a proxy in between dropped a header nobody asked for.
  const withResponse = (answer: Answer, data: unknown) => {
    const out = { status: answer.status, data, headers: answer.headers };
    if (!route.etag) return out;
    const etag = answer.headers.get('etag');
    if (etag === null) throw PetstoreError.unexpected(operation, answer, 'without the ETag its OpenAPI entry promises', answer.body);
    return { ...out, etag };
  };
  if (!route.paged) {
    const method = async (...args: unknown[]) => (await call(args)).body;
    return {
      method: Object.assign(method, {
        withResponse: async (...args: unknown[]) => {
          const answer = await call(args);
          return withResponse(answer, answer.body);
        },
      }),
    };
  }

  // One page, and the query of the next one: the `Link: rel="next"` target's parameters (its cursor
  // and every filter), replayed on this client's own base URL so the key never goes elsewhere.
  const page = async (args: readonly unknown[], query?: Query): Promise<{ answer: Answer; page: Page<unknown>; next: Query }> => {
    const answer = await call(args, query);
    const href = linkTarget(answer.headers.get('link'), 'next');
    const next = href === undefined ? undefined : queryOf(new URL(href, transport.baseUrl).searchParams);
    return { answer, page: { data: answer.body as unknown[], nextCursor: (next?.cursor as string | undefined) ?? null }, next };
  };
  const method = async (...args: unknown[]): Promise<Page<unknown>> => (await page(args)).page;
  return {
    method: Object.assign(method, {
      withResponse: async (...args: unknown[]) => {
        const { answer, page: data } = await page(args);
        return withResponse(answer, data);
      },
    }),
    iterate: (...args: unknown[]): AutoPaging<unknown> =>
      autoPaging(
        (async function* () {
          let query: Query;
          do {
            const { page: current, next } = await page(args, query);
            yield* current.data;
            query = next;
          } while (query !== undefined);
        })(),
      ),
  };
}

/** A query's parameters; one given more than once (`tag=a&tag=b`) as the list of its values. */
function queryOf(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    out[name] = values.length > 1 ? values : (values[0] as string);
  }
  return out;
}

/** The items of every page, and `toArray({ limit })`: the first `limit` of them, stopping the fetching there. */
function autoPaging<T>(items: AsyncGenerator<T, void, undefined>): AutoPaging<T> {
  return Object.assign(items, {
    async toArray(options: { readonly limit: number }): Promise<T[]> {
      const limit = positiveInteger('toArray({ limit })', options?.limit, 1);
      const out: T[] = [];
      for await (const item of items) {
        out.push(item);
        if (out.length === limit) break;
      }
      return out;
    },
  });
}

function resources(transport: Transport): Resources {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [operation, name] of Object.entries(METHODS) as [OperationId, string][]) {
    const [resource, method] = name.split('.') as [string, string];
    const bound = bind(transport, operation, ROUTES[operation]);
    out[resource] ??= {};
    const target = out[resource];
    target[method] = bound.method;
    if (bound.iterate) target[iterateName(method)] = bound.iterate;
  }
  // pets.search(q, filters): listPets with the words first (PetSearch).
  const pets = out.pets as Record<string, unknown>;
  const list = pets.list as (...args: unknown[]) => unknown;
  const iterate = pets.iterate as (...args: unknown[]) => unknown;
  pets.search = (q: string, filters?: object, options?: object) => list({ ...filters, q }, options);
  pets.iterateSearch = (q: string, filters?: object, options?: object) => iterate({ ...filters, q }, options);
  for (const methods of Object.values(out)) Object.freeze(methods);
  return out as unknown as Resources;
}

// The resources (`pets`, `orders`, …) are typed from the operation table; the class adds them at run time.
export interface Petstore extends Omit<Resources, 'pets'> {
  readonly pets: Resource<'pets'> & PetSearch;
}

/**
 * A client of the Pet Store API.
 *
 *     const petstore = new Petstore({ baseUrl: 'https://api.example.com/v1', apiKey: process.env.PETSTORE_API_KEY });
 *     for await (const pet of petstore.pets.iterate({ status: 'available' })) console.log(pet.name);
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merged interface only types what the constructor assigns.
export class Petstore {
  /** Verify (and, for tests, sign) webhook deliveries: Standard Webhooks 1.0. */
  static readonly webhooks = { verify: verifyWebhook, sign: signWebhook } as const;
  /**
   * The same as `Petstore.webhooks`, so that `petstore.webhooks.verify` works too. The endpoints that
   * receive deliveries are an API resource of their own: `webhookEndpoints` (Stripe's split).
   */
  readonly webhooks = Petstore.webhooks;

  readonly #transport: Transport;

  constructor(options: PetstoreOptions) {
    this.#transport = new Transport(options);
    Object.assign(this, resources(this.#transport));
  }

  /** The last `RateLimit` values the service sent (undefined before the first response that had them). */
  get rateLimit(): RateLimit | undefined {
    return this.#transport.rateLimit;
  }
}
