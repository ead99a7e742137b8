import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;
type RouteSchema = Parameters<ReturnType<SerializerFactory>>[0];
type Schemas = Record<string, unknown>;

const buildSerializer = SerializerSelector();
/** Compiled serializers by the JSON of their inputs: options, response schema, the shared schemas it references. */
const compiled = new Map<string, Serializer>();
/**
 * The JSON of each shared schema. Fastify hands every context of an app the same copies of the
 * shared schemas (made once, when they are added) and never changes them, so each is written once.
 */
const texts = new WeakMap<object, string>();

function text(schema: unknown): string {
  if (schema === null || typeof schema !== 'object') return JSON.stringify(schema);
  let known = texts.get(schema);
  if (known === undefined) {
    known = JSON.stringify(schema);
    texts.set(schema, known);
  }
  return known;
}

/**
 * Fastify's own response serializer compiler (fast-json-stringify), remembering what it compiled.
 * A serializer is a function of the response schema, the shared schemas it references and the
 * options, all plain JSON, so the same JSON gets the same function. Routes repeat the same error
 * responses, so even one app compiles fewer; the CLI and the tests, which build many apps in one
 * process, reuse the functions instead of compiling every response schema of every app again.
 *
 * The compiler is given only the shared schemas the response schema references (directly or
 * through one another): fast-json-stringify checks and indexes every shared schema it is given on
 * every compile, and a response references few of them. The generated code is the same.
 */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const shared = (externalSchemas ?? {}) as Schemas;
  const optionsText = JSON.stringify(options ?? null);
  const compile = (route: RouteSchema): Serializer => {
    const schemaText = JSON.stringify(route.schema);
    const used = referencedSchemas(schemaText, (route.schema as { $id?: unknown }).$id, shared) ?? shared;
    const key = [optionsText, schemaText, ...Object.keys(used).map((id) => text(used[id]))].join('\n');
    // A fresh compiler each time: the library's drops a response schema's own $id (getKey's `ApiKey`)
    // from the shared schemas it holds, so a route compiled after it could no longer reference it.
    const serializer = compiled.get(key) ?? remembering(buildSerializer(used, options)(route));
    compiled.set(key, serializer);
    return serializer;
  };
  return (route) => {
    const items = (route.schema as { type?: unknown; items?: unknown }).items;
    if ((route.schema as { type?: unknown }).type !== 'array' || typeof items !== 'object' || items === null) return compile(route);
    // A list is its items' JSON, comma-separated in brackets — what the list's own serializer
    // writes — so each item's JSON can be remembered (see remembering), and so can a list of
    // frozen items: a hot page is the same pets, in the same order, request after request.
    const whole = compile(route);
    const item = compile({ ...route, schema: items });
    const lists = new WeakMap<object, { readonly items: readonly unknown[]; readonly json: string }>();
    return (payload: unknown) => {
      if (!Array.isArray(payload)) return whole(payload);
      const first: unknown = payload[0];
      if (!isFrozenObject(first)) return `[${payload.map(item).join(',')}]`;
      const known = lists.get(first);
      if (known !== undefined && sameItems(known.items, payload)) return known.json;
      const json = `[${payload.map(item).join(',')}]`;
      if (payload.every(isFrozenObject)) lists.set(first, { items: payload.slice(), json });
      return json;
    };
  };
};

const isFrozenObject = (value: unknown): value is object => typeof value === 'object' && value !== null && Object.isFrozen(value);

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The serializer, remembering the JSON of frozen objects: a frozen object cannot change, so its
 * JSON cannot either. The read caches hand every request the same frozen pets until the database
 * changes (storage/rows.ts, `frozenPet`), so a hot page or pet is serialized once, not per request.
 */
function remembering(serialize: Serializer): Serializer {
  const known = new WeakMap<object, string>();
  return (payload: unknown) => {
    if (!isFrozenObject(payload)) return serialize(payload);
    let json = known.get(payload);
    if (json === undefined) {
      json = serialize(payload);
      known.set(payload, json);
    }
    return json;
  };
}

// A `$ref` member in JSON text: inside a string a quote is escaped, so the pattern only meets real members.
const REF = /"\$ref":"([^"#]*)/g;
/** The ids a schema's JSON text references, by text. */
const refsOf = new Map<string, string[]>();

function refs(schemaText: string): string[] {
  let ids = refsOf.get(schemaText);
  if (ids === undefined) {
    ids = [...new Set(Array.from(schemaText.matchAll(REF), (m) => m[1]))].sort();
    refsOf.set(schemaText, ids);
  }
  return ids;
}

/**
 * The shared schemas a schema (its JSON text, its `$id`) references by `$ref`, directly or through
 * one another, by id in a stable order; or undefined when a reference names none of them (then the
 * compiler gets them all, and decides).
 */
export function referencedSchemas(schemaText: string, ownId: unknown, shared: Schemas): Schemas | undefined {
  const found = new Set<string>();
  const pending = [schemaText];
  while (pending.length > 0) {
    for (const id of refs(pending.pop()!)) {
      // '#/…' points into the schema the reference is in, which is already there.
      if (id === '' || id === ownId || found.has(id)) continue;
      if (!Object.hasOwn(shared, id)) return undefined;
      found.add(id);
      pending.push(text(shared[id]));
    }
  }
  const used: Schemas = {};
  for (const id of [...found].sort()) used[id] = shared[id];
  return used;
}
