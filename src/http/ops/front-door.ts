import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * `GET /`: a person who opens the service's address in a browser is sent to `target` (the store console) rather than shown a JSON 404. 302, not 301: where the front
 * door leads may change, and a browser must not remember it for good.
 */
export const frontDoorPlugin = fp(frontDoor, { name: 'front-door', dependencies: ['error-handler', 'telemetry', 'method-not-allowed'] });

async function frontDoor(app: FastifyInstance, { target }: { readonly target: `/${string}` }): Promise<void> {
  app.get('/', { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) => reply.redirect(target, 302));
}
