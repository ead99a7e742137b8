import type { RouteOptions } from 'fastify';

type HookName = 'onRequest' | 'preHandler' | 'onSend' | 'onResponse';

/**
 * Appends a route-level hook from an onRoute hook. Hooks built per route close over what they need
 * of the route's options (scope, deprecation, pattern), so the request path reads no route config
 * (Fastify's `request.routeOptions` builds a fresh object on every access). A new array is
 * assigned: Fastify shares the caller's options object with the HEAD route it derives from a GET.
 */
export function addRouteHook(route: RouteOptions, name: HookName, hook: (...args: never[]) => unknown): void {
  const existing = route[name] as unknown;
  (route as unknown as Record<HookName, unknown[]>)[name] = existing === undefined ? [hook] : [...[existing].flat(), hook];
}
