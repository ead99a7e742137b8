import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { notFound } from '../errors.ts';
import { ifMatch, tagged, withEntityTag } from '../http/policies/conditional.ts';
import { idempotentResponse } from '../http/policies/idempotency.ts';
import { registerMergePatchParser } from '../http/edge/json-body.ts';
import {
  bodyErrors,
  commonErrors,
  errorResponse,
  MALFORMED,
  IdempotencyHeaders,
  idempotencyErrors,
  IfMatchHeaders,
  IfNoneMatchHeaders,
  INVALID_JSON,
  invalidIds,
  mergePatchBodyErrors,
  notModified,
  preconditionErrors,
  prose,
  UNEXPECTED_BODY,
} from '../schemas.ts';
import { linkNext } from '../paging.ts';
import { csvResponse, sendCsv } from '../csv.ts';
import { PET_CSV_HEADERS } from './pet.csv.ts';
import { BULK_MAX_IDS, BulkPetChange, BulkResult, ExportPetsQuery, ListPetsQuery, listed, NewPet, Pet, PetIdParams, PetPatch, Pets } from './pet.schemas.ts';
import type { PetService } from './pet.service.ts';

export interface PetRoutesOptions {
  readonly pets: PetService;
  /** Absolute or relative base of the API, including /v1, for Location and Link. */
  readonly base: string;
  /** Animals an export reads a page (EXPORT_PAGE_SIZE; tests make it small to see the paging). */
  readonly exportPageSize?: number;
}

// getPet was marked deprecated on 2026-01-01 (docs/api.md); it is removed on 2030-12-05.
export const GET_PET_DEPRECATED_AT = new Date('2026-01-01T00:00:00Z');
export const GET_PET_SUNSET = new Date('2030-12-05T00:00:00Z');

/** Whether the caller's key may read pets: then a refusal may name another animal (microchip_in_use). */
const mayReadPets = (request: FastifyRequest) => request.principal?.scopes.includes('pets:read') ?? false;

// The listing's filters, as its query schema has them (the rest pages and orders it).
const FILTERS = Object.keys(ListPetsQuery.properties).filter((p) => !['limit', 'sort', 'cursor'].includes(p));

export const petRoutes: FastifyPluginAsyncTypebox<PetRoutesOptions> = async (app, { pets, base, exportPageSize }) => {
  const location = (pet: Pet) => `${base}/pets/${pet.id}`;

  app.get(
    '/pets',
    {
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'listPets',
        tags: ['Pets'],
        summary: 'List animals',
        description: `Returns a page of animals, ascending by id, optionally filtered by ${listed(FILTERS, 'and')} (any of them together, but \`id\` with neither \`q\` nor \`tag\`). \`id\` names the animals itself. Each carries its entity tag (\`etag\`), which \`If-Match\` accepts: \`GET /pets?id=7\` reads one animal and its tag without the deprecated getPet. When more may follow, the response has \`Link: <…>; rel="next"\` (RFC 8288) with a \`cursor\`; follow it as given. The last page has no \`next\` link. Withdrawn animals are never listed.`,
        querystring: ListPetsQuery,
        response: {
          200: { ...Pets, description: 'A page of animals' },
          400: errorResponse`Invalid ${prose(listed(Object.keys(ListPetsQuery.properties), 'or'))}, \`id\` with \`q\` or \`tag\` or another order than id, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for these filters (${'invalid_cursor'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const page = await pets.list(request.query);
      const { limit, status, categoryId, id, q, tag, sex, breed, recordComplete, microchip, sort } = request.query;
      linkNext(reply, page, base, '/pets', { limit, status, categoryId, id: id?.map(String), q, tag, sex, breed, recordComplete, microchip, sort });
      return page.items.map(withEntityTag);
    },
  );

  app.get(
    '/pets.csv',
    {
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'exportPets',
        tags: ['Pets'],
        summary: 'Export animals as CSV',
        description: `Every animal \`GET /pets\` lists with the same filters and \`sort\` (${listed(FILTERS, 'and')}), in its order, as one CSV file (RFC 4180: UTF-8, CRLF, a header row) of the columns an import reads: ${listed(PET_CSV_HEADERS, 'and')}. An object member is a column per property (\`breed.primary\`), \`category\` is the category's name, \`tags\` are one space apart, a boolean is \`true\` or \`false\`, a member the animal lacks is empty. A cell a spreadsheet would read as a formula (starting with \`=\`, \`+\`, \`-\`, \`@\`, a tab or a carriage return) starts with a quote mark \`'\`, which an import removes. Streamed a page of animals at a time, so an export of any length takes the same memory; an animal changed while the export runs is written as it was when its page was read ([API guide](/docs/api.md), "Exports").`,
        'x-stability': 'experimental',
        querystring: ExportPetsQuery,
        response: {
          200: csvResponse('The animals, as CSV', 'pets-2026-11-28.csv'),
          400: errorResponse`Invalid ${prose(listed(Object.keys(ExportPetsQuery.properties), 'or'))}, \`id\` with \`q\` or \`tag\` or another order than id, or an unknown or repeated query parameter (${'validation_failed'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const { filename, chunks } = await pets.exportCsv(request.query, exportPageSize);
      return sendCsv(reply, filename, chunks);
    },
  );

  app.post(
    '/pets',
    {
      config: { scope: 'pets:write', idempotent: true, etag: true },
      schema: {
        operationId: 'createPet',
        tags: ['Pets'],
        summary: 'Add an animal',
        description: 'Creates an animal; `status` defaults to `available`. Unknown fields are rejected. Send `Idempotency-Key` to make a retry safe.',
        headers: IdempotencyHeaders,
        body: NewPet,
        response: {
          201: { ...Pet, description: 'Animal added; `Location` names it, `ETag` is its entity tag' },
          400: errorResponse`Missing or invalid fields, an unknown field or query parameter (${'validation_failed'}); ${INVALID_JSON}; an unknown category (${'unknown_category'}); a body nested deeper than 32 levels, a malformed \`Idempotency-Key\` or request (${'bad_request'}: \`Host\`, \`Authorization\` twice, percent-encoding)`,
          409: errorResponse`The microchip number is another live animal's (${'microchip_in_use'}: the message names it to a key with \`pets:read\`), or a request with the same \`Idempotency-Key\` is still in flight (${'idempotency_key_in_use'})`,
          ...idempotencyErrors,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const pet = await pets.create(request.body, idempotentResponse(request, reply, location), mayReadPets(request));
      reply.code(201).header('location', location(pet));
      return tagged(request, reply, pet);
    },
  );

  app.post(
    '/pets/bulk',
    {
      config: { scope: 'pets:write', idempotent: true },
      schema: {
        operationId: 'bulkUpdatePets',
        tags: ['Pets'],
        summary: 'Change many animals at once',
        description: `Applies the same merge patch (PetPatch) to each of 1 to ${BULK_MAX_IDS} distinct animals, each under the rules of \`PATCH /pets/{petId}\`: an animal with an open order keeps its status, a missing or withdrawn one is refused, and so on. Each refusal is reported by id with the error the single PATCH would have answered; the others are changed (one \`pet.updated\` event per animal that changed). Each animal is changed in its own transaction (the [API guide](/docs/api.md), "Bulk changes"). Send \`Idempotency-Key\` to make a retry safe.`,
        'x-stability': 'experimental',
        headers: IdempotencyHeaders,
        body: BulkPetChange,
        response: {
          200: { ...BulkResult, description: 'What changed and what was refused, animal by animal' },
          400: errorResponse`No ids, more than 500 or one twice, an invalid patch, an unknown field or query parameter (${'validation_failed'}); ${INVALID_JSON}; a body nested deeper than 32 levels, a malformed \`Idempotency-Key\` or ${MALFORMED}`,
          409: errorResponse`A request with the same \`Idempotency-Key\` is still in flight (${'idempotency_key_in_use'})`,
          ...idempotencyErrors,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) =>
      pets.bulkUpdate(request.body.ids, request.body.patch, idempotentResponse(request, reply, null, { status: 200 }), mayReadPets(request)),
  );

  app.get(
    '/pets/:petId',
    {
      config: { scope: 'pets:read', etag: true, deprecation: { deprecatedAt: GET_PET_DEPRECATED_AT, sunset: GET_PET_SUNSET, successor: '/pets' } },
      schema: {
        operationId: 'getPet',
        tags: ['Pets'],
        summary: 'Get an animal (deprecated)',
        description:
          'Deprecated since 2026-01-01 and removed on 2030-12-05: use `GET /pets?id={petId}`, whose item carries the same entity tag as its `etag` member. Every response of the operation carries `Deprecation`, `Sunset` and `Link` headers, except the refusals of a message that could not be read as a request, which belong to no operation (408 and 431 of the `default` response, and a 400 or 505 for a message that is not valid HTTP/1.1: the connection layer answers them before any route is known); from the sunset on it answers 410. The animal comes with its `ETag`; send it back in `If-None-Match` to get 304 while it is unchanged.',
        deprecated: true,
        'x-deprecated-sunset': '2030-12-05',
        headers: IfNoneMatchHeaders,
        params: PetIdParams,
        response: {
          200: { ...Pet, description: 'The animal; `ETag` is its entity tag' },
          304: notModified,
          400: errorResponse`${invalidIds(['petId'], 'If-None-Match')} (${'validation_failed'}); ${MALFORMED}`,
          404: errorResponse`No animal with this id, or it was withdrawn (${'not_found'})`,
          410: errorResponse`The operation is past its sunset date (${'gone'})`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const pet = await pets.get(request.params.petId);
      if (!pet) throw notFound(`pet ${request.params.petId}`);
      return tagged(request, reply, pet);
    },
  );

  const conditionalWrite =
    'Send the `ETag` you last saw in `If-Match` to make the change only if nobody changed the animal since (else 412 `precondition_failed`, nothing changes).';

  // The merge-patch media type is parsed in this scope only: elsewhere it stays 415.
  await app.register(async (scope) => {
    registerMergePatchParser(scope);
    scope.withTypeProvider<TypeBoxTypeProvider>().patch(
      '/pets/:petId',
      {
        config: { scope: 'pets:write', etag: true },
        schema: {
          operationId: 'updatePet',
          tags: ['Pets'],
          summary: 'Change an animal',
          description: `Sets any of ${listed(Object.keys(PetPatch.properties), 'or')} (a JSON merge patch, RFC 7396, sent as \`application/merge-patch+json\` or \`application/json\`); the others are kept. While an order for the animal is open (\`placed\` or \`approved\`) its status belongs to the order: changing it → 409 \`pet_has_open_order\`. ${conditionalWrite}`,
          'x-stability': 'experimental',
          consumes: ['application/merge-patch+json', 'application/json'],
          headers: IfMatchHeaders,
          params: PetIdParams,
          body: PetPatch,
          response: {
            200: { ...Pet, description: 'The animal after the change; `ETag` is its new entity tag' },
            400: errorResponse`Invalid \`petId\`, body field or \`If-Match\`, an empty patch, an unknown field or query parameter (${'validation_failed'}); ${INVALID_JSON}; an unknown or deleted category (${'unknown_category'}); a body nested deeper than 32 levels or ${MALFORMED}`,
            404: errorResponse`No animal with this id, or it was withdrawn (${'not_found'})`,
            409: errorResponse`The status would change while an order for the animal is open (${'pet_has_open_order'}), or the microchip number is another live animal's (${'microchip_in_use'}: the message names it to a key with \`pets:read\`)`,
            ...preconditionErrors,
            ...mergePatchBodyErrors,
            ...commonErrors,
          },
        },
      },
      async (request, reply) => tagged(request, reply, await pets.update(request.params.petId, request.body, ifMatch(request), mayReadPets(request))),
    );
  });

  app.delete(
    '/pets/:petId',
    {
      config: { scope: 'pets:write' },
      schema: {
        operationId: 'deletePet',
        tags: ['Pets'],
        summary: 'Withdraw an animal',
        description: `The animal is withdrawn: from then on no listing shows it and \`GET /pets/{petId}\` answers 404; its id is never used again, and orders that name it stay readable. Refused while an order for it is open (409 \`pet_has_open_order\`). ${conditionalWrite}`,
        'x-stability': 'experimental',
        headers: IfMatchHeaders,
        params: PetIdParams,
        response: {
          204: { type: 'null', description: 'Withdrawn; no body' },
          400: errorResponse`${invalidIds(['petId'], 'If-Match')} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: errorResponse`No animal with this id, or it was already withdrawn (${'not_found'})`,
          409: errorResponse`An order for the animal is open (${'pet_has_open_order'})`,
          ...preconditionErrors,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      await pets.withdraw(request.params.petId, ifMatch(request));
      return reply.code(204).send(null);
    },
  );
};
