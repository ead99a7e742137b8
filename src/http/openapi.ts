import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { SCOPES } from '../keys/key.types.ts';

export const API_VERSION = '1.0.0';

/**
 * The OpenAPI 3.1 document is generated from the route schemas (the same objects that validate
 * requests and serialize responses). Shared schemas are referenced by $id and land in
 * components.schemas under that name.
 */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  const servers = [{ url: config.publicBaseUrl || '/v1', description: 'Production' }];
  if (config.stagingBaseUrl) servers.push({ url: config.stagingBaseUrl, description: 'Staging' });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Pet Store API',
        version: API_VERSION,
        description:
          'Lists, creates and fetches animals, and sells them through store orders. Every operation needs an API key sent as `Authorization: Bearer <key>`. Every error has the body `{code, message, status}`; the codes are listed in docs/api.md.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers,
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: `API key (\`pst_…\`), issued with \`petstore keys create\`. Keys carry scopes (${SCOPES.join(', ')}; all by default); an operation's required scope is named in its description. A key without it gets 403 \`insufficient_scope\`.`,
          },
        },
      },
      security: [{ bearerAuth: [] }],
      tags: [
        { name: 'Pets', description: 'Animals offered in the store, and their categories' },
        { name: 'Store', description: 'Orders: how an animal moves from available to pending to sold' },
      ],
      'x-tagGroups': [
        { name: 'Store', tags: ['Store'] },
        { name: 'Pets', tags: ['Pets'] },
      ],
    } as never,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => {
      if (!schema || (schema as { hide?: boolean }).hide) return { schema, url };
      const scope = route.config?.scope;
      const note = scope ? `\n\nRequires scope \`${scope}\`.` : '';
      const description = `${(schema as { description?: string }).description ?? ''}${note}`.trim();
      const security = route.config?.public ? [] : [{ bearerAuth: scope ? [scope] : [] }];
      return { schema: { ...schema, description, security } as never, url };
    },
  });
  app.get('/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}
