import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../errors.ts';
import { ifMatch, tagged } from '../http/policies/conditional.ts';
import { idempotentResponse } from '../http/policies/idempotency.ts';
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
  notModified,
  preconditionErrors,
} from '../schemas.ts';
import { linkNext } from '../paging.ts';
import { csvResponse, sendCsv } from '../csv.ts';
import { ExportOrdersQuery, ListOrdersQuery, NewOrder, Order, OrderIdParams, OrderUpdate, Orders } from './order.schemas.ts';
import { ORDER_CSV_HEADERS, ORDER_WITHOUT_CUSTOMER, type OrderService } from './order.service.ts';
import { formDeprecationHeaders } from '../http/policies/deprecation.ts';
import { CONSOLE_CSP } from '../http/ops/console.ts';
import type { BillOfSaleService } from './bill-of-sale.service.ts';

export interface OrderRoutesOptions {
  readonly orders: OrderService;
  readonly bills: BillOfSaleService;
  readonly base: string;
  /** The API guide, which the deprecation headers of an order without a customer link to. */
  readonly docsUrl: string;
  /** Orders an export reads a page (EXPORT_PAGE_SIZE; tests make it small to see the paging). */
  readonly exportPageSize?: number;
}

export const orderRoutes: FastifyPluginAsyncTypebox<OrderRoutesOptions> = async (app, { orders, bills, base, docsUrl, exportPageSize }) => {
  const withoutCustomer = formDeprecationHeaders(ORDER_WITHOUT_CUSTOMER, docsUrl);
  const location = (order: Order) => `${base}/store/orders/${order.id}`;

  app.get(
    '/store/orders',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listOrders',
        tags: ['Store'],
        summary: 'List store orders',
        description: 'A page of orders, ascending by id, optionally filtered by `status` and `petId`; paged like `GET /pets` (`Link: rel="next"`).',
        'x-stability': 'beta',
        querystring: ListOrdersQuery,
        response: {
          200: { ...Orders, description: 'A page of orders' },
          400: errorResponse`Invalid \`limit\`, \`status\`, \`petId\` or \`cursor\`, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for these filters (${'invalid_cursor'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const page = await orders.list(request.query);
      const { limit, status, petId } = request.query;
      linkNext(reply, page, base, '/store/orders', { limit, status, petId });
      return page.items;
    },
  );

  app.post(
    '/store/orders',
    {
      config: { scope: 'orders:write', idempotent: true, etag: true, formDeprecation: { ...ORDER_WITHOUT_CUSTOMER, form: 'a body without `customerId`' } },
      schema: {
        operationId: 'placeOrder',
        tags: ['Store'],
        summary: 'Place an order for an animal',
        description:
          'Creates an order in state `placed` for a customer (`customerId`, a live customer) and how the animal leaves the store (`method`, default `sale`); the animal becomes `pending` in the same transaction. Only an `available` animal can be ordered. An order without `customerId` is deprecated: until its sunset (2027-06-01) it is placed with no customer and answered with `Deprecation`, `Sunset` and a `Link` to the guide; from then on it is refused (400 `validation_failed`, `customerId` required). Send `Idempotency-Key` to make a retry safe.',
        'x-stability': 'experimental',
        headers: IdempotencyHeaders,
        body: NewOrder,
        response: {
          201: { ...Order, description: 'Order placed; `Location` names it, `ETag` is its entity tag' },
          400: errorResponse`Missing or invalid fields, an unknown field or query parameter (${'validation_failed'}); ${INVALID_JSON}; an unknown or withdrawn pet (${'unknown_pet'}); an unknown, withdrawn or erased customer (${'unknown_customer'}); a body nested deeper than 32 levels, a malformed \`Idempotency-Key\` or request (${'bad_request'}: \`Host\`, \`Authorization\` twice, percent-encoding)`,
          409: errorResponse`The animal is not available (${'pet_not_available'}), or a request with the same \`Idempotency-Key\` is still in flight (${'idempotency_key_in_use'})`,
          ...idempotencyErrors,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      if (request.body.customerId === undefined) reply.headers(withoutCustomer);
      const order = await orders.place(request.body, idempotentResponse(request, reply, location));
      reply.code(201).header('location', location(order));
      return tagged(request, reply, order);
    },
  );

  app.get(
    '/store/orders.csv',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'exportOrders',
        tags: ['Store'],
        summary: 'Export store orders as CSV',
        description: `Every order \`GET /store/orders\` lists with the same \`status\` and \`petId\`, ascending by id, as one CSV file (RFC 4180: UTF-8, CRLF, a header row) of the Order's members: ${ORDER_CSV_HEADERS.map((h) => `\`${h}\``).join(', ')}; a member an order lacks is empty. Cells are written as \`GET /pets.csv\` writes them (a formula-like cell starts with a quote mark \`'\`), streamed a page at a time ([API guide](/docs/api.md), "Exports").`,
        'x-stability': 'experimental',
        querystring: ExportOrdersQuery,
        response: {
          200: csvResponse('The orders, as CSV', 'orders-2026-11-28.csv'),
          400: errorResponse`Invalid \`status\` or \`petId\`, or an unknown or repeated query parameter (${'validation_failed'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const { filename, chunks } = await orders.exportCsv(request.query, exportPageSize);
      return sendCsv(reply, filename, chunks);
    },
  );

  app.get(
    '/store/orders/:orderId',
    {
      config: { scope: 'orders:read', etag: true },
      schema: {
        operationId: 'getOrder',
        tags: ['Store'],
        summary: 'Get an order',
        description: 'The order comes with its `ETag`; send it back in `If-None-Match` to get 304 while it is unchanged.',
        'x-stability': 'experimental',
        headers: IfNoneMatchHeaders,
        params: OrderIdParams,
        response: {
          200: { ...Order, description: 'The order; `ETag` is its entity tag' },
          304: notModified,
          400: errorResponse`${invalidIds(['orderId'], 'If-None-Match')} (${'validation_failed'}); ${MALFORMED}`,
          404: errorResponse`No order with this id (${'not_found'})`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const order = await orders.get(request.params.orderId);
      if (!order) throw notFound(`order ${request.params.orderId}`);
      return tagged(request, reply, order);
    },
  );

  app.patch(
    '/store/orders/:orderId',
    {
      config: { scope: 'orders:write', etag: true },
      schema: {
        operationId: 'updateOrder',
        tags: ['Store'],
        summary: 'Move an order to its next state',
        description:
          'Allowed transitions: placed → approved, approved → delivered (animal becomes `sold`), placed|approved → cancelled (animal becomes `available`). `delivered` and `cancelled` are final. Send the `ETag` you last saw in `If-Match` to move the order only if nobody changed it since (else 412 `precondition_failed`, nothing changes).',
        'x-stability': 'experimental',
        headers: IfMatchHeaders,
        params: OrderIdParams,
        body: OrderUpdate,
        response: {
          200: { ...Order, description: 'The order after the transition; `ETag` is its new entity tag' },
          400: errorResponse`Invalid \`orderId\`, body field or \`If-Match\`, an unknown field or query parameter (${'validation_failed'}); ${INVALID_JSON}; a body nested deeper than 32 levels or ${MALFORMED}`,
          404: errorResponse`No order with this id (${'not_found'})`,
          409: errorResponse`The transition is not allowed from the current state (${'invalid_transition'}); with \`RECORD_ENFORCE_ON_SALE=true\`, \`delivered\` for an animal whose record lacks a field the store requires (${'record_incomplete'}: the message names them)`,
          ...preconditionErrors,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => tagged(request, reply, await orders.update(request.params.orderId, request.body.status, ifMatch(request))),
  );

  app.get(
    '/store/orders/:orderId/bill-of-sale',
    {
      config: { scope: 'customers:read' },
      schema: {
        operationId: 'getBillOfSale',
        tags: ['Store'],
        summary: 'The bill of sale of an order (printable HTML)',
        description:
          "A printable document (HTML, A4 or Letter) for the buyer: the store (`STORE_NAME`, `STORE_ADDRESS`, `STORE_LICENCE`), the buyer's name and address, the animal and its record, its health log, the price, the deposit, the date and method, and the health disclosure (`SALE_DISCLOSURE_FILE`). It names the buyer, so it takes `customers:read`. Every value is escaped; the page has no script and takes its stylesheet from `/print/bill-of-sale.css`, under the console's Content-Security-Policy.",
        'x-stability': 'experimental',
        params: OrderIdParams,
        response: {
          200: { description: 'The bill of sale', content: { 'text/html': { schema: { type: 'string', contentMediaType: 'text/html' } } } },
          400: errorResponse`${invalidIds(['orderId'])} (${'validation_failed'}); ${MALFORMED}`,
          404: errorResponse`No order with this id (${'not_found'})`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const html = await bills.render(request.params.orderId);
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', CONSOLE_CSP)
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'no-referrer')
        .send(html);
    },
  );
};
