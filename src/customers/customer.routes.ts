import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ifMatch, tagged, withEntityTag } from '../http/policies/conditional.ts';
import { registerMergePatchParser } from '../http/edge/json-body.ts';
import { linkNext } from '../paging.ts';
import {
  bodyErrors,
  commonErrors,
  errorResponse,
  IfMatchHeaders,
  IfNoneMatchHeaders,
  INVALID_JSON,
  invalidIds,
  MALFORMED,
  mergePatchBodyErrors,
  notModified,
  preconditionErrors,
  UNEXPECTED_BODY,
} from '../schemas.ts';
import { csvResponse, sendCsv } from '../csv.ts';
import {
  Customer,
  CustomerErasure,
  CustomerExport,
  CustomerIdParams,
  ExportCustomersQuery,
  CustomerPatch,
  Customers,
  ListCustomersQuery,
  NewCustomer,
} from './customer.schemas.ts';
import { CUSTOMER_CSV_HEADERS, type CustomerService } from './customer.service.ts';

export interface CustomerRoutesOptions {
  readonly customers: CustomerService;
  readonly base: string;
  /** Customers an export reads a page (EXPORT_PAGE_SIZE; tests make it small to see the paging). */
  readonly exportPageSize?: number;
}

const NO_CUSTOMER = errorResponse`No customer with this id, or it was withdrawn or erased (${'not_found'})`;
const OPEN_SALE = errorResponse`The customer has an open order (placed or approved): deliver or cancel it first (${'customer_has_open_sale'})`;
const conditionalWrite =
  'Send the `ETag` you last saw in `If-Match` to make the change only if nobody changed the customer since (else 412 `precondition_failed`, nothing changes).';

export const customerRoutes: FastifyPluginAsyncTypebox<CustomerRoutesOptions> = async (app, { customers, base, exportPageSize }) => {
  const location = (c: Customer) => `${base}/customers/${c.id}`;

  app.get(
    '/customers',
    {
      config: { scope: 'customers:read' },
      schema: {
        operationId: 'listCustomers',
        tags: ['Customers'],
        summary: 'List or search customers',
        description:
          'A page of live customers, ascending by id; with `q`, those whose name, e-mail address or telephone number contains it. Each carries its entity tag (`etag`) for `If-Match`. Paged like `GET /pets` (`Link: rel="next"`). Withdrawn and erased customers are never listed.',
        'x-stability': 'experimental',
        querystring: ListCustomersQuery,
        response: {
          200: { ...Customers, description: 'A page of customers' },
          400: errorResponse`Invalid \`q\`, \`limit\` or \`cursor\`, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for this \`q\` (${'invalid_cursor'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const page = await customers.list(request.query);
      const { q, limit } = request.query;
      linkNext(reply, page, base, '/customers', { q, limit });
      return page.items.map(withEntityTag);
    },
  );

  app.get(
    '/customers.csv',
    {
      config: { scope: 'customers:read' },
      schema: {
        operationId: 'exportCustomers',
        tags: ['Customers'],
        summary: 'Export customers as CSV',
        description: `Every customer \`GET /customers\` lists with the same \`q\`, ascending by id, as one CSV file (RFC 4180: UTF-8, CRLF, a header row) of the Customer's members: ${CUSTOMER_CSV_HEADERS.map((h) => `\`${h}\``).join(', ')}; a member a customer lacks is empty. Personal data: it takes \`customers:read\`, as the listing does. Cells are written as \`GET /pets.csv\` writes them (a formula-like cell, such as a telephone number starting with \`+\`, starts with a quote mark \`'\`), streamed a page at a time ([API guide](/docs/api.md), "Exports").`,
        'x-stability': 'experimental',
        querystring: ExportCustomersQuery,
        response: {
          200: csvResponse('The customers, as CSV', 'customers-2026-11-28.csv'),
          400: errorResponse`Invalid \`q\`, or an unknown or repeated query parameter (${'validation_failed'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const { filename, chunks } = await customers.exportCsv(request.query, exportPageSize);
      return sendCsv(reply, filename, chunks);
    },
  );

  app.post(
    '/customers',
    {
      config: { scope: 'customers:write', etag: true },
      schema: {
        operationId: 'createCustomer',
        tags: ['Customers'],
        summary: 'Add a customer',
        description:
          'Records a person or organisation the store sells to, holds animals for or hands animals over to; records `customer.created` (with the id only). No `Idempotency-Key`: a stored replay would be a copy of personal data an erasure could not reach; after a lost answer, search (`GET /customers?q=`) before sending again.',
        'x-stability': 'experimental',
        body: NewCustomer,
        response: {
          201: { ...Customer, description: 'Customer added; `Location` names it, `ETag` is its entity tag' },
          400: errorResponse`Missing or invalid fields (a \`country\` that is not an ISO 3166-1 alpha-2 code among them), an unknown field or query parameter (${'validation_failed'}); ${INVALID_JSON}; a body nested deeper than 32 levels or ${MALFORMED}`,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const customer = await customers.create(request.body);
      reply.code(201).header('location', location(customer));
      return tagged(request, reply, customer);
    },
  );

  app.get(
    '/customers/:customerId',
    {
      config: { scope: 'customers:read', etag: true },
      schema: {
        operationId: 'getCustomer',
        tags: ['Customers'],
        summary: 'Get a customer',
        description: 'The customer comes with its `ETag`; send it back in `If-None-Match` to get 304 while it is unchanged.',
        'x-stability': 'experimental',
        headers: IfNoneMatchHeaders,
        params: CustomerIdParams,
        response: {
          200: { ...Customer, description: 'The customer; `ETag` is its entity tag' },
          304: notModified,
          400: errorResponse`${invalidIds(['customerId'], 'If-None-Match')} (${'validation_failed'}); ${MALFORMED}`,
          404: NO_CUSTOMER,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => tagged(request, reply, await customers.get(request.params.customerId)),
  );

  // The merge-patch media type is parsed in this scope only: elsewhere it stays 415.
  await app.register(async (scope) => {
    registerMergePatchParser(scope);
    scope.withTypeProvider<TypeBoxTypeProvider>().patch(
      '/customers/:customerId',
      {
        config: { scope: 'customers:write', etag: true },
        schema: {
          operationId: 'updateCustomer',
          tags: ['Customers'],
          summary: 'Change a customer',
          description: `Sets any of name, email, phone, address (member by member) or notes (a JSON merge patch, RFC 7396, sent as \`application/merge-patch+json\` or \`application/json\`); \`null\` removes email, phone, notes, \`address.line2\` or \`address.region\`. Records \`customer.updated\` when something changed. ${conditionalWrite}`,
          'x-stability': 'experimental',
          consumes: ['application/merge-patch+json', 'application/json'],
          headers: IfMatchHeaders,
          params: CustomerIdParams,
          body: CustomerPatch,
          response: {
            200: { ...Customer, description: 'The customer after the change; `ETag` is its new entity tag' },
            400: errorResponse`Invalid \`customerId\`, body field or \`If-Match\`, an empty patch, an unknown field or query parameter (${'validation_failed'}); ${INVALID_JSON}; a body nested deeper than 32 levels or ${MALFORMED}`,
            404: NO_CUSTOMER,
            ...preconditionErrors,
            ...mergePatchBodyErrors,
            ...commonErrors,
          },
        },
      },
      async (request, reply) => tagged(request, reply, await customers.update(request.params.customerId, request.body, ifMatch(request))),
    );
  });

  app.delete(
    '/customers/:customerId',
    {
      config: { scope: 'customers:write' },
      schema: {
        operationId: 'deleteCustomer',
        tags: ['Customers'],
        summary: 'Withdraw a customer',
        description: `The customer is withdrawn: no longer read, listed or named by a new order; its id is never used again, the orders naming it keep it, and its data stays until it is erased (\`POST /customers/{customerId}/erase\`). Refused while it has an open order. Records \`customer.deleted\`. ${conditionalWrite}`,
        'x-stability': 'experimental',
        headers: IfMatchHeaders,
        params: CustomerIdParams,
        response: {
          204: { type: 'null', description: 'Withdrawn; no body' },
          400: errorResponse`${invalidIds(['customerId'], 'If-Match')} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: NO_CUSTOMER,
          409: OPEN_SALE,
          ...preconditionErrors,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      await customers.withdraw(request.params.customerId, ifMatch(request));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/customers/:customerId/export',
    {
      config: { scope: 'customers:read' },
      schema: {
        operationId: 'exportCustomer',
        tags: ['Customers'],
        summary: 'Export everything held on a customer (GDPR Art. 15, 20)',
        description:
          'The customer as the store holds it — withdrawn and erased customers included, with what an erasure kept and until when — and every order naming them, as one JSON document to hand to the person.',
        'x-stability': 'experimental',
        params: CustomerIdParams,
        response: {
          200: { ...CustomerExport, description: 'What the store holds on the customer' },
          400: errorResponse`${invalidIds(['customerId'])} (${'validation_failed'}); ${MALFORMED}`,
          404: errorResponse`No customer was ever recorded with this id (${'not_found'})`,
          ...commonErrors,
        },
      },
    },
    async (request) => customers.export(request.params.customerId),
  );

  app.post(
    '/customers/:customerId/erase',
    {
      config: { scope: 'customers:write' },
      schema: {
        operationId: 'eraseCustomer',
        tags: ['Customers'],
        summary: "Erase a customer's personal data (GDPR Art. 17)",
        description:
          "Erases the customer's personal data and withdraws them. When they bought, adopted or took over an animal (a delivered order), the sale record must keep the buyer's name and address for `SALE_RECORD_RETENTION_DAYS` after the last one (NY Agriculture and Markets Law §402 asks two years): those are kept until then and erased by the service on its own when the period ends; everything else goes at once. The answer says what was kept and until when. Refused while an order is open. Erasing again changes nothing more and answers the same. Records `customer.deleted` when the customer was live.",
        'x-stability': 'experimental',
        params: CustomerIdParams,
        response: {
          200: { ...CustomerErasure, description: 'What was erased and what was kept' },
          400: errorResponse`${invalidIds(['customerId'])} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: errorResponse`No customer was ever recorded with this id (${'not_found'})`,
          409: OPEN_SALE,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request) => customers.erase(request.params.customerId),
  );
};
