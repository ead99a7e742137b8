import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../errors.ts';
import { idempotentResponse } from '../http/idempotency.ts';
import { commonErrors, errorResponse, IdempotencyHeaders, idempotencyErrors } from '../schemas.ts';
import { nextLink } from '../paging.ts';
import { ListPetsQuery, NewPet, Pet, PetIdParams, Pets } from './pet.schemas.ts';
import type { PetService } from './pet.service.ts';

export interface PetRoutesOptions {
  readonly pets: PetService;
  /** Absolute or relative base of the API, including /v1, for Location and Link. */
  readonly base: string;
}

// getPet was marked deprecated on 2026-01-01 (docs/api.md); it is removed on 2030-12-05.
export const GET_PET_DEPRECATED_AT = new Date('2026-01-01T00:00:00Z');
export const GET_PET_SUNSET = new Date('2030-12-05T00:00:00Z');

export const petRoutes: FastifyPluginAsyncTypebox<PetRoutesOptions> = async (app, { pets, base }) => {
  const location = (pet: Pet) => `${base}/pets/${pet.id}`;

  app.get(
    '/pets',
    {
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'listPets',
        tags: ['Pets'],
        summary: 'List animals',
        description:
          'Returns a page of animals, ascending by id. When more may follow, the response has `Link: <…>; rel="next"` (RFC 8288) with a `cursor`; follow it as given. The last page has no `next` link.',
        querystring: ListPetsQuery,
        response: {
          200: { ...Pets, description: 'A page of animals' },
          400: errorResponse(
            'Invalid `limit`, `status` or `cursor`, or an unknown or repeated query parameter (`validation_failed`); a `cursor` this service did not issue for these filters (`invalid_cursor`); a malformed request (`bad_request`: `Host`, `Authorization` twice, percent-encoding)',
          ),
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const page = await pets.list(request.query);
      if (page.next !== undefined) {
        const { limit, status } = request.query;
        reply.header('link', nextLink(base, '/pets', { limit, status, cursor: page.next }));
      }
      return page.items;
    },
  );

  app.post(
    '/pets',
    {
      config: { scope: 'pets:write', idempotent: true },
      schema: {
        operationId: 'createPet',
        tags: ['Pets'],
        summary: 'Add an animal',
        description: 'Creates an animal; `status` defaults to `available`. Unknown fields are rejected. Send `Idempotency-Key` to make a retry safe.',
        headers: IdempotencyHeaders,
        body: NewPet,
        response: {
          201: { ...Pet, description: 'Animal added; `Location` names it' },
          400: errorResponse(
            'Missing or invalid fields, an unknown field or query parameter (`validation_failed`); a body that is not JSON, not UTF-8, has a byte-order mark or a member named twice (`invalid_json`); an unknown category (`unknown_category`); a body nested deeper than 32 levels, a malformed `Idempotency-Key` or request (`bad_request`: `Host`, `Authorization` twice, percent-encoding)',
          ),
          409: errorResponse('A request with the same `Idempotency-Key` is still in flight (`idempotency_key_in_use`)'),
          ...idempotencyErrors,
          413: errorResponse('Request body larger than the limit (`payload_too_large`)'),
          415: errorResponse('Body not sent as application/json (`unsupported_media_type`)'),
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const pet = await pets.create(request.body, idempotentResponse(request, reply, 201, location));
      return reply.code(201).header('location', location(pet)).send(pet);
    },
  );

  app.get(
    '/pets/:petId',
    {
      config: { scope: 'pets:read', deprecation: { deprecatedAt: GET_PET_DEPRECATED_AT, sunset: GET_PET_SUNSET, successor: '/pets' } },
      schema: {
        operationId: 'getPet',
        tags: ['Pets'],
        summary: 'Get an animal (deprecated)',
        description:
          'Deprecated since 2026-01-01 and removed on 2030-12-05: use `GET /pets` with the `status` filter. Every response carries `Deprecation`, `Sunset` and `Link` headers; from the sunset on it answers 410.',
        deprecated: true,
        'x-deprecated-sunset': '2030-12-05',
        params: PetIdParams,
        response: {
          200: { ...Pet, description: 'The animal' },
          400: errorResponse(
            '`petId` is not an integer between 1 and 2^53-1 written in decimal digits, or a query parameter was sent (`validation_failed`); a malformed request (`bad_request`: `Host`, `Authorization` twice, percent-encoding)',
          ),
          404: errorResponse('No animal with this id (`not_found`)'),
          410: errorResponse('The operation is past its sunset date (`gone`)'),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const pet = await pets.get(request.params.petId);
      if (!pet) throw new AppError('not_found', `pet ${request.params.petId} does not exist`);
      return pet;
    },
  );
};
