import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { notFound } from '../errors.ts';
import { idempotentResponse } from '../http/policies/idempotency.ts';
import { registerMergePatchParser } from '../http/edge/json-body.ts';
import {
  bodyErrors,
  commonErrors,
  errorResponse,
  MALFORMED,
  IdempotencyHeaders,
  idempotencyErrors,
  INVALID_JSON,
  invalidIds,
  mergePatchBodyErrors,
  UNEXPECTED_BODY,
} from '../schemas.ts';
import { Categories, Category, CategoryIdParams, CategoryPatch, NewCategory } from './category.schemas.ts';
import type { CategoryService } from './category.service.ts';

export interface CategoryRoutesOptions {
  readonly categories: CategoryService;
  readonly base: string;
}

const badId = invalidIds(['categoryId']);

export const categoryRoutes: FastifyPluginAsyncTypebox<CategoryRoutesOptions> = async (app, { categories, base }) => {
  const location = (category: Category) => `${base}/categories/${category.id}`;

  app.get(
    '/categories',
    {
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'listCategories',
        tags: ['Pets'],
        summary: 'List categories',
        description: 'All categories an animal can belong to (the values of `categoryId`), ascending by id. Deleted categories are not listed.',
        response: {
          200: { ...Categories, description: 'Every category' },
          400: errorResponse`A query parameter was sent (${'validation_failed'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async () => categories.list(),
  );

  app.post(
    '/categories',
    {
      config: { scope: 'categories:write', idempotent: true },
      schema: {
        operationId: 'createCategory',
        tags: ['Pets'],
        summary: 'Add a category',
        description: 'Names are unique among categories, ignoring case: a duplicate → 409 `category_exists`. Send `Idempotency-Key` to make a retry safe.',
        'x-stability': 'experimental',
        headers: IdempotencyHeaders,
        body: NewCategory,
        response: {
          201: { ...Category, description: 'Category added; `Location` names it' },
          400: errorResponse`A missing or invalid name, an unknown field or query parameter (${'validation_failed'}); ${INVALID_JSON}; a body nested deeper than 32 levels, a malformed \`Idempotency-Key\` or ${MALFORMED}`,
          409: errorResponse`A category with this name exists (${'category_exists'}), or a request with the same \`Idempotency-Key\` is still in flight (${'idempotency_key_in_use'})`,
          ...idempotencyErrors,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const category = await categories.create(request.body.name, idempotentResponse(request, reply, location));
      return reply.code(201).header('location', location(category)).send(category);
    },
  );

  app.get(
    '/categories/:categoryId',
    {
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'getCategory',
        tags: ['Pets'],
        summary: 'Get a category',
        'x-stability': 'experimental',
        params: CategoryIdParams,
        response: {
          200: { ...Category, description: 'The category' },
          400: errorResponse`${badId} (${'validation_failed'}); ${MALFORMED}`,
          404: errorResponse`No category with this id, or it was deleted (${'not_found'})`,
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const category = await categories.get(request.params.categoryId);
      if (!category) throw notFound(`category ${request.params.categoryId}`);
      return category;
    },
  );

  // The merge-patch media type is parsed in this scope only: elsewhere it stays 415.
  await app.register(async (scope) => {
    registerMergePatchParser(scope);
    scope.withTypeProvider<TypeBoxTypeProvider>().patch(
      '/categories/:categoryId',
      {
        config: { scope: 'categories:write' },
        schema: {
          operationId: 'updateCategory',
          tags: ['Pets'],
          summary: 'Rename a category',
          description:
            'Sets the name (a JSON merge patch, RFC 7396, sent as `application/merge-patch+json` or `application/json`); the animals in the category keep it. A name another category has, ignoring case → 409 `category_exists`.',
          'x-stability': 'experimental',
          consumes: ['application/merge-patch+json', 'application/json'],
          params: CategoryIdParams,
          body: CategoryPatch,
          response: {
            200: { ...Category, description: 'The category after the change' },
            400: errorResponse`${badId}, or a missing or invalid name or an unknown field (${'validation_failed'}); ${INVALID_JSON}; a body nested deeper than 32 levels or ${MALFORMED}`,
            404: errorResponse`No category with this id, or it was deleted (${'not_found'})`,
            409: errorResponse`Another category has this name (${'category_exists'})`,
            ...mergePatchBodyErrors,
            ...commonErrors,
          },
        },
      },
      async (request) => categories.rename(request.params.categoryId, request.body.name),
    );
  });

  app.delete(
    '/categories/:categoryId',
    {
      config: { scope: 'categories:write' },
      schema: {
        operationId: 'deleteCategory',
        tags: ['Pets'],
        summary: 'Delete a category',
        description:
          'Refused while an animal that is not withdrawn belongs to it (409 `category_in_use`): move or withdraw those first. Its id is never used again; its name is free for a new category.',
        'x-stability': 'experimental',
        params: CategoryIdParams,
        response: {
          204: { type: 'null', description: 'Deleted; no body' },
          400: errorResponse`${badId} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: errorResponse`No category with this id, or it was already deleted (${'not_found'})`,
          409: errorResponse`Animals still belong to the category (${'category_in_use'})`,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      await categories.remove(request.params.categoryId);
      return reply.code(204).send(null);
    },
  );
};
