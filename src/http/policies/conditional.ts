import type { FastifyReply, FastifyRequest } from 'fastify';
import { entityTag, ifNoneMatchPasses, parseCondition, type Condition } from '../../preconditions.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Every 2xx response of the route carries one resource and its strong ETag (set with
     * `tagged`); the OpenAPI document says so and an idempotent replay recomputes it.
     */
    etag?: boolean;
  }
}

/** The request's If-Match, for a conditional write (evaluated by the storage engine); 400 when malformed. */
export function ifMatch(request: FastifyRequest): Condition | undefined {
  return parseCondition(request.headers['if-match'], 'If-Match');
}

/**
 * Sets the ETag of `resource` and returns it as the body. For a GET (or HEAD) whose If-None-Match
 * names the current tag, answers 304 with no body instead (the ETag and every other header of
 * the route, deprecation headers included, still sent).
 */
export function tagged<T extends object>(request: FastifyRequest, reply: FastifyReply, resource: T): T | FastifyReply {
  const tag = entityTag(resource);
  reply.header('etag', tag);
  if (request.method !== 'GET' && request.method !== 'HEAD') return resource;
  const condition = parseCondition(request.headers['if-none-match'], 'If-None-Match');
  if (condition === undefined || ifNoneMatchPasses(condition, tag)) return resource;
  return reply.code(304).send();
}

const withTags = new WeakMap<object, object>();

/**
 * `resource` with its entity tag as the member `etag`, for a listing (a list has no ETag per item):
 * the tag is that of the resource without the member, the one `If-Match` is compared with. For a
 * frozen resource (the read caches') the tagged copy is made once and frozen too, so the
 * serializer's memory of frozen items and pages keeps working.
 */
export function withEntityTag<T extends object>(resource: T): T & { readonly etag: string } {
  const known = withTags.get(resource) as (T & { etag: string }) | undefined;
  if (known !== undefined) return known;
  const copy = { ...resource, etag: entityTag(resource) };
  if (!Object.isFrozen(resource)) return copy;
  Object.freeze(copy);
  withTags.set(resource, copy);
  return copy;
}
