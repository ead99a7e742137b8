import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { tagged } from '../http/policies/conditional.ts';
import { linkNext } from '../paging.ts';
import { PetIdParams } from '../pets/pet.schemas.ts';
import { bodyErrors, commonErrors, errorResponse, INVALID_JSON, invalidIds, MALFORMED, UNEXPECTED_BODY } from '../schemas.ts';
import { Order } from '../store/order.schemas.ts';
import { Hold, HoldCancel, HoldIdParams, Holds, ListHoldsQuery, NewHold } from './hold.schemas.ts';
import type { HoldService } from './hold.service.ts';

export interface HoldRoutesOptions {
  readonly holds: HoldService;
  readonly base: string;
}

const ENDED = errorResponse`The hold has ended: cancelled, converted, or expired (its \`until\` passed) (${'hold_not_live'})`;

export const holdRoutes: FastifyPluginAsyncTypebox<HoldRoutesOptions> = async (app, { holds, base }) => {
  app.post(
    '/pets/:petId/holds',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'placeHold',
        tags: ['Store'],
        summary: 'Put an animal on hold for a customer',
        description:
          "Keeps an `available` animal for a live customer until `until` (after now, at most 90 days ahead), optionally against a deposit in the store's currency; the animal becomes `pending` in the same transaction. One live hold per animal: a second → 409 `pet_on_hold`. A hold ends once: cancelled, converted into the customer's order, or expired by the service at `until` (within 30 s; the animal is `available` again). Records `hold.placed` and `pet.updated`.",
        'x-stability': 'experimental',
        params: PetIdParams,
        body: NewHold,
        response: {
          201: { ...Hold, description: 'The hold, live' },
          400: errorResponse`Invalid \`petId\`, missing or invalid fields, \`until\` not ahead or more than 90 days ahead, an unknown field or query parameter (${'validation_failed'}); ${INVALID_JSON}; an unknown, withdrawn or erased customer (${'unknown_customer'}); a body nested deeper than 32 levels or ${MALFORMED}`,
          404: errorResponse`No animal with this id, or it was withdrawn (${'not_found'})`,
          409: errorResponse`The animal is on hold already (${'pet_on_hold'}), or it is not available (${'pet_not_available'})`,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await holds.place(request.params.petId, request.body)),
  );

  app.get(
    '/holds',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listHolds',
        tags: ['Store'],
        summary: 'List holds',
        description:
          'A page of holds, ascending by id, optionally of one customer (`customerId`), of one animal (`petId`) and in one state; paged like `GET /pets` (`Link: rel="next"`). An animal has at most one live hold: `petId=…&state=live` lists it, or nothing.',
        'x-stability': 'experimental',
        querystring: ListHoldsQuery,
        response: {
          200: { ...Holds, description: 'A page of holds' },
          400: errorResponse`Invalid \`customerId\`, \`petId\`, \`state\`, \`limit\` or \`cursor\`, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for these filters (${'invalid_cursor'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const page = await holds.list(request.query);
      const { customerId, petId, state, limit } = request.query;
      linkNext(reply, page, base, '/holds', { customerId, petId, state, limit });
      return page.items;
    },
  );

  app.post(
    '/holds/:holdId/cancel',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'cancelHold',
        tags: ['Store'],
        summary: 'Cancel a hold',
        description:
          'Ends a live hold; the animal is `available` again. `depositRefunded` records whether the deposit was paid back (`false` when there is none). Records `hold.cancelled` and `pet.updated`.',
        'x-stability': 'experimental',
        params: HoldIdParams,
        body: HoldCancel,
        response: {
          200: { ...Hold, description: 'The hold, cancelled' },
          400: errorResponse`${invalidIds(['holdId'])}, a missing or invalid \`depositRefunded\` (\`true\` for a hold without a deposit), an unknown field (${'validation_failed'}); ${INVALID_JSON}; a body nested deeper than 32 levels or ${MALFORMED}`,
          404: errorResponse`No hold with this id (${'not_found'})`,
          409: ENDED,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request) => holds.cancel(request.params.holdId, request.body.depositRefunded),
  );

  app.post(
    '/holds/:holdId/convert',
    {
      config: { scope: 'orders:write', etag: true },
      schema: {
        operationId: 'convertHold',
        tags: ['Store'],
        summary: 'Convert a hold into an order',
        description:
          "Places the order of the hold's customer for its animal (which stays `pending`), with the hold's `method`, the animal's price and the hold's deposit; the hold ends `converted`, naming the order. Records `hold.converted` and `order.placed`. `Location` names the order.",
        'x-stability': 'experimental',
        params: HoldIdParams,
        response: {
          201: { ...Order, description: 'The order placed; `Location` names it, `ETag` is its entity tag' },
          400: errorResponse`${invalidIds(['holdId'])} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: errorResponse`No hold with this id (${'not_found'})`,
          409: ENDED,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const order = await holds.convert(request.params.holdId);
      reply.code(201).header('location', `${base}/store/orders/${order.id}`);
      return tagged(request, reply, order);
    },
  );
};
