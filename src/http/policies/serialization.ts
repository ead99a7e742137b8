import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

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
  return (route) => {
    const key = JSON.stringify(route.schema);
    // A fresh compiler each time: the library's drops a response schema's own $id (getKey's `ApiKey`)
    // from the shared schemas it holds, so a route compiled after it could no longer reference it.
    const serializer = cache.get(key) ?? buildSerializer(externalSchemas, options)(route);
    cache.set(key, serializer);
    return serializer;
  };
};
