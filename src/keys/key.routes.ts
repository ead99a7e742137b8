import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { idempotentResponse } from '../http/policies/idempotency.ts';
import { linkNext } from '../paging.ts';
import {
  bodyErrors,
  commonErrors,
  errorResponse,
  IdempotencyHeaders,
  idempotencyErrors,
  INVALID_JSON,
  invalidIds,
  MALFORMED,
  PageQuery,
  UNEXPECTED_BODY,
} from '../schemas.ts';
import { ApiKey, ApiKeys, CallingKey, CreatedApiKey, KeyIdParams, NewApiKey } from './key.schemas.ts';
import type { KeyService } from './key.service.ts';

export interface KeyRoutesOptions {
  readonly keys: KeyService;
  readonly base: string;
}

const badId = invalidIds(['keyId']);

export const keyRoutes: FastifyPluginAsyncTypebox<KeyRoutesOptions> = async (app, { keys, base }) => {
  const location = (key: { id: number }) => `${base}/keys/${key.id}`;

  app.post(
    '/keys',
    {
      config: { scope: 'keys:admin', idempotent: true },
      schema: {
        operationId: 'createKey',
        tags: ['Keys'],
        summary: 'Issue an API key',
        description:
          'The response is the only one that shows the secret (`key`); the service keeps only its hash. The new key gets `scopes` (default: every scope but the admin ones and the customers: ones (personal data), which must be named) — only scopes the calling key holds itself, else 403 `insufficient_scope`. The calling key becomes its parent (`parentId`): the new key is revoked with it, and never expires later than it — without `expiresAt` it expires when the calling key does; a later `expiresAt` is refused (400), not shortened. With `expiresAt` it is refused from that instant on, like a revoked key. Send `Idempotency-Key` to make a retry safe: a replay shows the same secret, which is stored for it (24 h) encrypted under your own key. Keys form a tree: who may read and revoke whom is in the [API guide](/docs/api.md), "Who may revoke whom".',
        'x-stability': 'experimental',
        headers: IdempotencyHeaders,
        body: NewApiKey,
        response: {
          201: { ...CreatedApiKey, description: 'Key issued; `Location` names it. Store `key` now: it is never shown again' },
          400: errorResponse`Missing or invalid fields (an unknown scope, \`expiresAt\` not RFC 3339, not in the future or later than the calling key's own expiry), an unknown field or query parameter (${'validation_failed'}); ${INVALID_JSON}; a body nested deeper than 32 levels, a malformed \`Idempotency-Key\` or ${MALFORMED}`,
          409: errorResponse`A request with the same \`Idempotency-Key\` is still in flight (${'idempotency_key_in_use'})`,
          ...idempotencyErrors,
          ...bodyErrors,
          ...commonErrors,
          403: errorResponse`The calling key lacks \`keys:admin\`, or a scope it asks to grant (${'insufficient_scope'})`,
        },
      },
    },
    async (request, reply) => {
      const created = await keys.create(request.body, request.principal!, idempotentResponse(request, reply, location, { sealed: true }));
      return reply.code(201).header('location', location(created)).send(created);
    },
  );

  app.get(
    '/keys',
    {
      config: { scope: 'keys:admin' },
      schema: {
        operationId: 'listKeys',
        tags: ['Keys'],
        summary: 'List API keys',
        description:
          'A page of the keys the calling key manages — itself and the keys it made, directly or through them; every key for an owner or bootstrap key — ascending by id, revoked and expired ones included (never a secret or its hash); paged like `GET /pets` (`Link: rel="next"`). Keys form a tree: who may read and revoke whom is in the [API guide](/docs/api.md), "Who may revoke whom".',
        'x-stability': 'experimental',
        querystring: PageQuery,
        response: {
          200: { ...ApiKeys, description: 'A page of keys' },
          400: errorResponse`Invalid \`limit\` or \`cursor\`, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for this listing (${'invalid_cursor'}); ${MALFORMED}`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const page = await keys.list(request.principal!, request.query);
      linkNext(reply, page, base, '/keys', { limit: request.query.limit });
      return page.items;
    },
  );

  app.get(
    '/keys/me',
    {
      // No scope: every valid key may ask what it may do (a client shows only the actions it allows).
      schema: {
        operationId: 'getCallingKey',
        tags: ['Keys'],
        summary: 'Get the calling API key',
        description:
          'The key this request is made with: its id, name, scopes and expiry — never its secret or its hash. Any valid key may call it, whatever its scopes, so a client (the store console) can offer only what the key may do. A key configured in `PETSTORE_API_KEYS` has every scope and no id, name or expiry.',
        'x-stability': 'experimental',
        response: {
          200: { ...CallingKey, description: 'The calling key' },
          400: errorResponse`A query parameter was sent (${'validation_failed'}); ${MALFORMED}`,
          404: errorResponse`The key was revoked while this request was being answered (${'not_found'})`,
          ...commonErrors,
        },
      },
    },
    async (request) => keys.me(request.principal!),
  );

  app.get(
    '/keys/:keyId',
    {
      config: { scope: 'keys:admin' },
      schema: {
        operationId: 'getKey',
        tags: ['Keys'],
        summary: 'Get an API key',
        description:
          'What the key may do, who made it and whether it still works — never its secret or its hash. Only a key the calling key manages (itself, or one it made directly or through its keys; any key for an owner or bootstrap key); any other is 404, as if it did not exist. Keys form a tree: who may read and revoke whom is in the [API guide](/docs/api.md), "Who may revoke whom".',
        'x-stability': 'experimental',
        params: KeyIdParams,
        response: {
          200: { ...ApiKey, description: 'The key' },
          400: errorResponse`${badId} (${'validation_failed'}); ${MALFORMED}`,
          404: errorResponse`No key with this id that the calling key manages (${'not_found'})`,
          ...commonErrors,
        },
      },
    },
    async (request) => keys.get(request.principal!, request.params.keyId),
  );

  app.get(
    '/keys/:keyId/descendants',
    {
      config: { scope: 'keys:admin' },
      schema: {
        operationId: 'listKeyDescendants',
        tags: ['Keys'],
        summary: 'List the keys a revocation would end',
        description:
          'A page of the live keys below the key — the keys it made, directly or through them, neither revoked nor expired — ascending by id: the keys that `DELETE /keys/{keyId}` would end besides the key itself (never a secret or its hash); paged like `GET /pets` (`Link: rel="next"`). Only a key the calling key manages (as for `GET /keys/{keyId}`); any other is 404, as if it did not exist. Keys form a tree: who may read and revoke whom is in the [API guide](/docs/api.md), "Who may revoke whom".',
        'x-stability': 'experimental',
        params: KeyIdParams,
        querystring: PageQuery,
        response: {
          200: { ...ApiKeys, description: 'A page of the live keys below the key' },
          400: errorResponse`${badId}, invalid \`limit\` or \`cursor\`, or an unknown or repeated query parameter (${'validation_failed'}); a \`cursor\` this service did not issue for this listing (${'invalid_cursor'}); ${MALFORMED}`,
          404: errorResponse`No key with this id that the calling key manages (${'not_found'})`,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const page = await keys.descendants(request.principal!, request.params.keyId, request.query);
      linkNext(reply, page, base, `/keys/${request.params.keyId}/descendants`, { limit: request.query.limit });
      return page.items;
    },
  );

  app.delete(
    '/keys/:keyId',
    {
      config: { scope: 'keys:admin' },
      schema: {
        operationId: 'revokeKey',
        tags: ['Keys'],
        summary: 'Revoke an API key',
        description:
          'The key, and every key it made (directly or through them), is refused (401) from the next request on, on every instance, exactly like `petstore keys revoke`. A key may revoke itself and the keys it made, directly or through them; an owner or bootstrap key may revoke any key; any other key is 404, as if it did not exist. Revoking a revoked key changes nothing and answers 204 again. Keys form a tree: who may read and revoke whom is in the [API guide](/docs/api.md), "Who may revoke whom".',
        'x-stability': 'experimental',
        params: KeyIdParams,
        response: {
          204: { type: 'null', description: 'Revoked; no body' },
          400: errorResponse`${badId} (${'validation_failed'}); ${UNEXPECTED_BODY}; ${MALFORMED}`,
          404: errorResponse`No key with this id that the calling key manages (${'not_found'})`,
          ...bodyErrors,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      await keys.revoke(request.principal!, request.params.keyId);
      return reply.code(204).send(null);
    },
  );
};
