import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { idempotentResponse } from '../http/policies/idempotency.ts';
import { linkNext } from '../paging.ts';
import { PetIdParams } from '../pets/pet.schemas.ts';
import { bodyErrors, commonErrors, errorResponse, IdempotencyHeaders, idempotencyErrors, INVALID_JSON, invalidIds, MALFORMED } from '../schemas.ts';
import { HealthDueQuery, HealthRecord, HealthRecordParams, HealthRecords, HealthVoid, ListHealthQuery, NewHealthRecord } from './health.schemas.ts';
import type { HealthService } from './health.service.ts';

export interface HealthRoutesOptions {
  readonly health: HealthService;
  readonly base: string;
}

const NO_PET = errorResponse`No animal with this id, or it was withdrawn (${'not_found'})`;

export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (app, { health, base }) => {
  const location = (r: HealthRecord) => `${base}/pets/${r.petId}/health/${r.id}`;

  app.post(
    '/pets/:petId/health',
    {
      config: { scope: 'health:write', idempotent: true },
      schema: {
        operationId: 'addHealthRecord',
        tags: ['Health'],
        summary: "Add a record to an animal's health log",
        description:
          "Appends a vaccination, deworming, examination, treatment or note to the animal's log. The log is evidence: a record is never changed or deleted; a wrong one is voided (`POST …/health/{recordId}/void`) and kept. `date` must not be in the future (later than today everywhere on Earth, UTC+14) and `nextDue`, when given, not before `date` (else 400 `validation_failed` naming the field). The latest record of a kind that is not voided sets the animal's entry in the due list (`GET /health/due`). Records `pet.health.recorded`. Send `Idempotency-Key` to make a retry safe.",
        'x-stability': 'experimental',
        headers: IdempotencyHeaders,
        params: PetIdParams,
        body: NewHealthRecord,
        response: {
          201: { ...HealthRecord, description: "Record added; `Location` names it in the animal's log" },
          400: errorResponse`${invalidIds(['petId'])}, missing or invalid fields, an unknown field, \`date\` in the future or \`nextDue\` before \`date\` (${'validation_failed'}); ${INVALID_JSON}; a body nested deeper than 32 levels, a malformed \`Idempotency-Key\` or ${MALFORMED}`,
          404: NO_PET,
          409: errorResponse`A request with the same \`Idempotency-Key\` is still in flight (${'idempotency_key_in_use'})`,
          ...idempotencyErrors,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const record = await health.append(request.params.petId, request.body, idempotentResponse(request, reply, location));
      reply.code(201).header('location', location(record));
      return record;
    },
  );

  app.get(
    '/pets/:petId/health',
    {
      config: { scope: 'health:read' },
      schema: {
        operationId: 'listHealthRecords',
        tags: ['Health'],
        summary: "List an animal's health log",
        description:
          'The records, latest `date` first (records of the same day: the later written first), voided ones included (with `voided`: show them struck through). Paged like `GET /pets` (`Link: rel="next"`).',
        'x-stability': 'experimental',
        params: PetIdParams,
        querystring: ListHealthQuery,
        response: {
          200: { ...HealthRecords, description: "A page of the animal's health log" },
          400: errorResponse`Invalid \`petId\`, \`limit\` or \`cursor\`, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for this animal's log (${'invalid_cursor'}); ${MALFORMED}`,
          404: NO_PET,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const { petId } = request.params;
      const page = await health.list(petId, request.query);
      linkNext(reply, page, base, `/pets/${petId}/health`, { limit: request.query.limit });
      return page.items;
    },
  );

  app.get(
    '/pets/:petId/health/:recordId',
    {
      config: { scope: 'health:read' },
      schema: {
        operationId: 'getHealthRecord',
        tags: ['Health'],
        summary: 'Get a health record',
        'x-stability': 'experimental',
        params: HealthRecordParams,
        response: {
          200: { ...HealthRecord, description: 'The record' },
          400: errorResponse`${invalidIds(['petId', 'recordId'])} (${'validation_failed'}); ${MALFORMED}`,
          404: errorResponse`No animal with this id, it was withdrawn, or it has no record with this id (${'not_found'})`,
          ...commonErrors,
        },
      },
    },
    async (request) => health.get(request.params.petId, request.params.recordId),
  );

  app.post(
    '/pets/:petId/health/:recordId/void',
    {
      config: { scope: 'health:write' },
      schema: {
        operationId: 'voidHealthRecord',
        tags: ['Health'],
        summary: 'Void a health record',
        description:
          'Marks a wrong record void, with the reason, and keeps it in the log: it no longer counts for the due list (the latest record of its kind that is not voided does). A record is voided once: voiding it again is refused with 409 `already_voided` and changes nothing. Records `pet.health.voided`.',
        'x-stability': 'experimental',
        params: HealthRecordParams,
        body: HealthVoid,
        response: {
          200: { ...HealthRecord, description: 'The record, voided' },
          400: errorResponse`${invalidIds(['petId', 'recordId'])}, a missing or invalid \`reason\`, an unknown field (${'validation_failed'}); ${INVALID_JSON}; a body nested deeper than 32 levels or ${MALFORMED}`,
          404: errorResponse`No animal with this id, it was withdrawn, or it has no record with this id (${'not_found'})`,
          409: errorResponse`The record was voided already (${'already_voided'})`,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request) => health.void(request.params.petId, request.params.recordId, request.body.reason),
  );

  app.get(
    '/health/due',
    {
      config: { scope: 'health:read' },
      schema: {
        operationId: 'listHealthDue',
        tags: ['Health'],
        summary: 'List the care due (the daily care list)',
        description:
          'For every live animal and every kind of record, the latest record of that kind that is not voided, when its `nextDue` is before `before`: what is due, earliest `nextDue` first (ties by record id). A later record of the kind without `nextDue` takes the animal off the list for that kind. Paged like `GET /pets` (`Link: rel="next"`), read from an index on `nextDue`.',
        'x-stability': 'experimental',
        querystring: HealthDueQuery,
        response: {
          200: { ...HealthRecords, description: 'A page of the records that set when care is due' },
          400: errorResponse`A missing or invalid \`before\`, an invalid \`limit\` or \`cursor\`, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for this \`before\` (${'invalid_cursor'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const page = await health.due(request.query);
      const { before, limit } = request.query;
      linkNext(reply, page, base, '/health/due', { before, limit });
      return page.items;
    },
  );
};
