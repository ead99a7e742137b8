import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commonErrors, errorResponse } from '../schemas.ts';
import type { CategoryRepository } from '../storage/storage.ts';
import { Categories } from './category.schemas.ts';

export const categoryRoutes: FastifyPluginAsyncTypebox<{ categories: CategoryRepository }> = async (app, { categories }) => {
  app.get(
    '/categories',
    {
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'listCategories',
        tags: ['Pets'],
        summary: 'List categories',
        description: 'All categories an animal can belong to (the values of `categoryId`), ascending by id. Operators add categories with `petstore categories add`.',
        response: {
          200: { ...Categories, description: 'Every category' },
          400: errorResponse('A query parameter was sent (`validation_failed`); a malformed request (`bad_request`: `Host`, `Authorization` twice, percent-encoding)'),
          ...commonErrors,
        },
      },
    },
    async () => categories.list(),
  );
};
