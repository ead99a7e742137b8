import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;
type RouteSchema = Parameters<ReturnType<SerializerFactory>>[0];

const buildSerializer = SerializerSelector();
/** Compiled serializers by the JSON of their inputs: shared schemas and options, then the response schema. */
const compiled = new Map<string, Map<string, Serializer>>();

/**
 * Fastify's own response serializer compiler (fast-json-stringify), remembering what it compiled.
 * A serializer is a function of the response schema, the shared schemas it may reference and the
 * options, all plain JSON, so the same JSON gets the same function. Routes repeat the same error
 * responses, so even one app compiles fewer; the CLI and the tests, which build many apps in one
 * process, reuse the functions instead of compiling every response schema of every app again.
 */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const context = JSON.stringify([externalSchemas, options]);
  const cache = compiled.get(context) ?? new Map<string, Serializer>();
  compiled.set(context, cache);
  // A fresh compiler each time: the library's drops a response schema's own $id (getKey's `ApiKey`)
  // from the shared schemas it holds, so a route compiled after it could no longer reference it.
  const compile = (route: RouteSchema): Serializer => {
    const key = JSON.stringify(route.schema);
    const serializer = cache.get(key) ?? remembering(buildSerializer(externalSchemas, options)(route));
    cache.set(key, serializer);
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
