// The one place that names the client's methods: operationId → "resource.method". Everything else
// about an operation (HTTP method, path, input, paging, types) comes from the OpenAPI document
// through the generated routes.ts and schema.ts. An operation added to the document and not listed
// here fails to compile (the `satisfies` below), and test/operations.test.ts checks the same at run
// time, so a new operation cannot ship unreachable.
import type { ROUTES } from './routes.ts';
import type { operations } from './schema.ts';

export type OperationId = keyof operations;

export const METHODS = {
  listPets: 'pets.list',
  createPet: 'pets.create',
  getPet: 'pets.get',
  updatePet: 'pets.update',
  deletePet: 'pets.delete',
  listCategories: 'categories.list',
  createCategory: 'categories.create',
  getCategory: 'categories.get',
  updateCategory: 'categories.update',
  deleteCategory: 'categories.delete',
  listOrders: 'orders.list',
  placeOrder: 'orders.place',
  getOrder: 'orders.get',
  updateOrder: 'orders.update',
  getInventory: 'inventory.get',
  createKey: 'keys.create',
  listKeys: 'keys.list',
  getKey: 'keys.get',
  revokeKey: 'keys.revoke',
  listEvents: 'events.list',
  createWebhook: 'webhooks.create',
  listWebhooks: 'webhooks.list',
  getWebhook: 'webhooks.get',
  updateWebhook: 'webhooks.update',
  deleteWebhook: 'webhooks.delete',
  rotateWebhookSecret: 'webhooks.rotateSecret',
  listWebhookDeliveries: 'webhooks.listDeliveries',
  retryWebhookDelivery: 'webhooks.retryDelivery',
} as const satisfies { readonly [K in OperationId]: `${string}.${string}` };

/** A paged listing's `listX` method gets an auto-paging `iterateX` twin. */
export function iterateName(listMethod: string): string {
  if (!listMethod.startsWith('list')) throw new Error(`a paged operation's method must be named list…, not ${listMethod}`);
  return `iterate${listMethod.slice('list'.length)}`;
}

/** Per-call options, last argument of every method. */
export interface RequestOptions {
  /** POSTs only: the `Idempotency-Key` to send (default: a random UUID), the same on every retry. */
  readonly idempotencyKey?: string;
  /** Cancels the call, retries and waits included; the call then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Extra request headers (e.g. a precondition). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Overrides the client's `timeoutMs` for this call. */
  readonly timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  readonly maxRetries?: number;
}

/** One page of a listing and the cursor of the next one (null on the last page). */
export interface Page<T> {
  readonly data: T[];
  readonly nextCursor: string | null;
}

// ---- Types of one operation, read from the generated schema ----

type Op<K extends OperationId> = operations[K];
type Route<K extends OperationId> = (typeof ROUTES)[K];

type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? [Name, ...PathParamNames<Rest>] : [];
type PathParams<K extends OperationId> = NonNullable<Op<K>['parameters']['path']>;
/** Path parameters are positional, in the order the path names them: `orders.update(orderId, body)`. */
type PathArgs<K extends OperationId> = Positional<PathParamNames<Route<K>['path']>, PathParams<K>>;
type Positional<Names extends string[], P> = Names extends [infer N extends string, ...infer Rest extends string[]] ? [P[N & keyof P], ...Positional<Rest, P>] : [];

type Body<K extends OperationId> = NonNullable<Op<K>['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;
type Query<K extends OperationId> = NonNullable<Op<K>['parameters']['query']>;
type Input<K extends OperationId> = Route<K>['input'] extends 'body' ? Body<K> : Route<K>['input'] extends 'query' ? Query<K> : never;
/** The input object: required when it has a required field, optional otherwise, absent when there is none. */
type InputArgs<K extends OperationId> = [Input<K>] extends [never] ? [] : Record<never, never> extends Input<K> ? [input?: Input<K>] : [input: Input<K>];

export type Args<K extends OperationId> = [...PathArgs<K>, ...InputArgs<K>, options?: RequestOptions];

type SuccessStatus = 200 | 201 | 202 | 204;
type Responses<K extends OperationId> = Op<K>['responses'];
type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : undefined;
/** What a call resolves to: the 2xx response's JSON body (nothing for a 204). */
export type Result<K extends OperationId> = JsonOf<Responses<K>[Extract<keyof Responses<K>, SuccessStatus>]>;
type Item<K extends OperationId> = Result<K> extends readonly (infer T)[] ? T : never;

type Paged<K extends OperationId> = K extends OperationId ? (Route<K>['paged'] extends true ? K : never) : never;
type Method<K extends OperationId> = (...args: Args<K>) => Promise<Route<K>['paged'] extends true ? Page<Item<K>> : Result<K>>;
type Iterate<K extends OperationId> = (...args: Args<K>) => AsyncGenerator<Item<K>, void, undefined>;

type Table = typeof METHODS;
type ResourceOf<K extends OperationId> = Table[K] extends `${infer R}.${string}` ? R : never;
type MethodOf<K extends OperationId> = Table[K] extends `${string}.${infer M}` ? M : never;
type IterateOf<K extends OperationId> = MethodOf<K> extends `list${infer Rest}` ? `iterate${Rest}` : never;
type OperationsOf<R extends string> = { [K in OperationId]: ResourceOf<K> extends R ? K : never }[OperationId];

/** One resource's methods, e.g. `pets`: `list`, `iterate`, `create`, `get`. */
export type Resource<R extends string> = { readonly [K in OperationsOf<R> as MethodOf<K>]: Method<K> } & {
  readonly [K in Paged<OperationsOf<R>> as IterateOf<K>]: Iterate<K>;
};

export type Resources = { readonly [R in ResourceOf<OperationId>]: Resource<R> };
