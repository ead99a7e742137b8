import { Type, type Static } from 'typebox';
import { Id, TEXT_PATTERN, Timestamp } from '../schemas.ts';
import { NAMED_ONLY_SCOPES, DEFAULT_SCOPES, SCOPES, type Scope } from './key.types.ts';

export const ScopeSchema = Type.Unsafe<Scope>({
  $id: 'Scope',
  type: 'string',
  enum: [...SCOPES],
  description: 'A permission a key holds (the [API guide](/docs/api.md), "Authentication")',
});
const scopeRef = Type.Unsafe<Scope>({ $ref: 'Scope#' });

const name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: TEXT_PATTERN,
  description: 'What the key is for (1–100 characters, not blank)',
  examples: ['shop front'],
});
const nullableTimestamp = (description: string) => Type.Union([Timestamp(description), Type.Null()], { description: `${description}; null when not set` });

const properties = {
  id: { ...Id('Identifier of the key'), examples: [4] },
  name,
  prefix: Type.String({ description: '`pst_` and the first 4 characters of the secret, to tell keys apart', examples: ['pst_Xy3a'] }),
  scopes: Type.Array(scopeRef, { description: 'What the key may do' }),
  createdAt: Timestamp('When the key was created'),
  expiresAt: nullableTimestamp('From when the key is refused; never later than the expiry of the key that made it (`parentId`)'),
  revokedAt: nullableTimestamp('When the key was revoked — by itself, or with an ancestor (revoking a key revokes the keys it made)'),
  parentId: Type.Union([Id('The key that made this one'), Type.Null()], {
    description:
      'The key that made this one through createKey; null for a top-level key (made by the operator with `petstore keys create`, by a bootstrap key, the first-run key, or before keys recorded their maker). A key ends with its parent: revoked with it, and never expiring later',
    examples: [1],
  }),
  owner: Type.Boolean({
    description:
      'An owner key (the first-run key, or one made with `petstore keys create --owner`) reads and revokes every key; any other key only itself and the keys it made, directly or through them',
  }),
};
const example = {
  id: 4,
  name: 'shop front',
  prefix: 'pst_Xy3a',
  scopes: ['pets:read', 'orders:write'],
  createdAt: '2026-11-22T12:00:00.000Z',
  expiresAt: '2027-11-22T00:00:00.000Z',
  revokedAt: null,
  parentId: 1,
  owner: false,
};

/** What anyone sees of a key: never the secret, never its hash. */
export const ApiKey = Type.Object(properties, { $id: 'ApiKey', additionalProperties: false, examples: [example] });
export type ApiKey = Static<typeof ApiKey>;
export const ApiKeys = Type.Array(Type.Unsafe<ApiKey>({ $ref: 'ApiKey#' }), { $id: 'ApiKeys', description: 'A page of keys, ascending by id' });

/** A key as createKey answers it: the only response that shows the secret. */
export const CreatedApiKey = Type.Object(
  {
    ...properties,
    key: Type.String({
      description: 'The secret: send it as `Authorization: Bearer <key>`. Shown in this response only; store it now.',
      examples: ['pst_Xy3aK9…'],
    }),
  },
  { $id: 'CreatedApiKey', additionalProperties: false, examples: [{ ...example, key: 'pst_Xy3aK9wq0tQ1fV8nP2sLr5mZ7cB4dE6gH0jN3uY1iO' }] },
);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const NewApiKey = Type.Object(
  {
    name,
    scopes: Type.Optional(
      Type.Array(scopeRef, {
        minItems: 1,
        uniqueItems: true,
        description: `What the key may do; only scopes the calling key holds. Default: ${DEFAULT_SCOPES.join(', ')} (never ${NAMED_ONLY_SCOPES.join(' nor ')}, which must be named). Every scope: name them all (the Scope enum)`,
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          "From when the key is refused (401, like a revoked key): RFC 3339 with an offset, in the future, and not later than the calling key's own expiry (else 400 `validation_failed`: refused, not shortened). Default: the calling key's expiry (never, for a key that does not expire)",
        examples: ['2027-11-22T00:00:00Z'],
      }),
    ),
  },
  {
    $id: 'NewApiKey',
    additionalProperties: false,
    examples: [{ name: 'shop front', scopes: ['pets:read', 'orders:write'], expiresAt: '2027-11-22T00:00:00.000Z' }],
  },
);
export type NewApiKey = Static<typeof NewApiKey>;

/**
 * The key a request is made with (GET /keys/me): what a client needs to offer only what the key may
 * do. A key configured in PETSTORE_API_KEYS is stored nowhere, so it has no id, no name and no expiry.
 */
export const CallingKey = Type.Object(
  {
    id: Type.Union([properties.id, Type.Null()], { description: 'Identifier of the key; null for a key configured in `PETSTORE_API_KEYS`' }),
    name: Type.Union([name, Type.Null()], { description: 'What the key is for; null for a key configured in `PETSTORE_API_KEYS`' }),
    scopes: properties.scopes,
    expiresAt: properties.expiresAt,
  },
  {
    $id: 'CallingKey',
    additionalProperties: false,
    examples: [{ id: 4, name: 'shop front', scopes: ['pets:read', 'orders:write'], expiresAt: '2027-11-22T00:00:00.000Z' }],
  },
);
export type CallingKey = Static<typeof CallingKey>;

export const KeyIdParams = Type.Object({ keyId: Id('The identifier of the key') }, { additionalProperties: false });
