// The one place that names the client's methods: operationId → "resource.method". Everything else
// about an operation (HTTP method, path, input, paging, types) comes from the OpenAPI document
// through the generated routes.ts and schema.ts. An operation added to the document and not listed
// here fails to compile (the `satisfies` below), and test/operations.test.ts checks the same at run
// time, so a new operation cannot ship unreachable.
import type { ROUTES } from './routes.ts';
import type { operations } from './schema.ts';

// The operations the service answers (the document's paths, as routes.ts lists them); the
// `webhooks` section's operations, which schema.ts lists too, are requests the service sends.
export type OperationId = keyof operations & keyof typeof ROUTES;

export const METHODS = {
  listPets: 'pets.list',
  createPet: 'pets.create',
  getPet: 'pets.get',
  updatePet: 'pets.update',
  deletePet: 'pets.delete',
  bulkUpdatePets: 'pets.bulkUpdate',
  createImport: 'imports.create',
  getImport: 'imports.get',
  applyImport: 'imports.apply',
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
  getCallingKey: 'keys.me',
  listKeyDescendants: 'keys.listDescendants',
  listEvents: 'events.list',
  createWebhook: 'webhookEndpoints.create',
  listWebhooks: 'webhookEndpoints.list',
  getWebhook: 'webhookEndpoints.get',
  updateWebhook: 'webhookEndpoints.update',
  deleteWebhook: 'webhookEndpoints.delete',
  rotateWebhookSecret: 'webhookEndpoints.rotateSecret',
  listWebhookDeliveries: 'webhookEndpoints.listDeliveries',
  retryWebhookDelivery: 'webhookEndpoints.retryDelivery',
  addPetPhoto: 'pets.addPhoto',
  listPetPhotos: 'pets.listPhotos',
  deletePetPhoto: 'pets.deletePhoto',
  getPhoto: 'photos.get',
  getPhotoThumbnail: 'photos.getThumbnail',
  addHealthRecord: 'health.add',
  listHealthRecords: 'health.list',
  getHealthRecord: 'health.get',
  voidHealthRecord: 'health.void',
  listHealthDue: 'health.listDue',
  listStaff: 'staff.list',
  inviteStaff: 'staff.invite',
  getStaff: 'staff.get',
  updateStaff: 'staff.update',
  resetStaffPassword: 'staff.resetPassword',
  deactivateStaff: 'staff.deactivate',
  acceptInvitation: 'invitations.accept',
  signIn: 'sessions.signIn',
  getCurrentSession: 'sessions.getCurrent',
  signOut: 'sessions.signOut',
  listSessions: 'sessions.list',
  endOtherSessions: 'sessions.endOthers',
  endSession: 'sessions.end',
  changePassword: 'account.changePassword',
  passkeySignInOptions: 'sessions.passkeyOptions',
  signInWithPasskey: 'sessions.signInWithPasskey',
  passkeyRegistrationOptions: 'account.passkeyOptions',
  addPasskey: 'account.addPasskey',
  listPasskeys: 'account.listPasskeys',
  removePasskey: 'account.removePasskey',
  listCustomers: 'customers.list',
  createCustomer: 'customers.create',
  getCustomer: 'customers.get',
  updateCustomer: 'customers.update',
  deleteCustomer: 'customers.delete',
  exportCustomer: 'customers.export',
  eraseCustomer: 'customers.erase',
  placeHold: 'holds.place',
  listHolds: 'holds.list',
  cancelHold: 'holds.cancel',
  convertHold: 'holds.convert',
  getBillOfSale: 'orders.billOfSale',
  getDealerBook: 'records.dealerBook',
  exportPets: 'pets.exportCsv',
  exportOrders: 'orders.exportCsv',
  exportCustomers: 'customers.exportCsv',
  listActivity: 'activity.list',
  exportActivity: 'activity.export',
} as const satisfies { readonly [K in OperationId]: `${string}.${string}` };

/** A paged listing's `listX` method gets an auto-paging `iterateX` twin. */
export function iterateName(listMethod: string): string {
  if (!listMethod.startsWith('list')) throw new Error(`a paged operation's method must be named list…, not ${listMethod}`);
  return `iterate${listMethod.slice('list'.length)}`;
}

/** Per-call options every method takes (its last argument). */
export interface RequestOptions {
  /** Cancels the call, retries and waits included; the call then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Extra request headers (e.g. tracing). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Overrides the client's `timeoutMs` for this call. */
  readonly timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  readonly maxRetries?: number;
}

/**
 * The request headers operations document, and the option each is passed as. An operation takes
 * exactly the options of the headers its entry lists (routes.ts `headers`); a header added to the
 * document and not named here fails to compile (the `satisfies`), like an operation missing in METHODS.
 */
export const HEADER_OPTIONS = {
  'idempotency-key': 'idempotencyKey',
  'if-match': 'ifMatch',
  'if-none-match': 'ifNoneMatch',
} as const satisfies { readonly [H in DocumentedHeader]: keyof HeaderOptions };
type HeaderOption = (typeof HEADER_OPTIONS)[keyof typeof HEADER_OPTIONS];

/** What each header option means; an operation's options pick those its document entry lists. */
export interface HeaderOptions {
  /** `Idempotency-Key` (POSTs that take one): default a random UUID; the same on every retry of the call. */
  readonly idempotencyKey?: string;
  /**
   * `If-Match`: an `ETag` from `withResponse()` (or `*`). The write happens only if the resource still
   * has that tag; otherwise nothing changes and the call throws PetstoreError `precondition_failed` (412).
   */
  readonly ifMatch?: string;
  /**
   * `If-None-Match`: an `ETag` from `withResponse()`. While it is still current the service answers
   * 304 and the call resolves to `undefined` (`withResponse()`: `status: 304`).
   */
  readonly ifNoneMatch?: string;
}

/** One page of a listing and the cursor of the next one (null on the last page). */
export interface Page<T> {
  readonly data: T[];
  readonly nextCursor: string | null;
}

/** What `iterate` returns: an async generator over every item of every page, and `toArray`. */
export interface AutoPaging<T> extends AsyncGenerator<T, void, undefined> {
  /**
   * The first `limit` items, in order (all of them if there are fewer), fetching only the pages they
   * need: Stripe's `autoPagingToArray({ limit })`. The limit is required, so a listing that keeps
   * growing cannot fill the memory. (`limit` in the query is the page size, a different thing.)
   */
  toArray(options: { readonly limit: number }): Promise<T[]>;
}

// ---- Types of one operation, read from the generated schema ----

type Op<K extends OperationId> = operations[K];
type Route<K extends OperationId> = (typeof ROUTES)[K];

type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? [Name, ...PathParamNames<Rest>] : [];
type PathParams<K extends OperationId> = NonNullable<Op<K>['parameters']['path']>;
/** Path parameters are positional, in the order the path names them: `orders.update(orderId, body)`. */
type PathArgs<K extends OperationId> = Positional<PathParamNames<Route<K>['path']>, PathParams<K>>;
type Positional<Names extends string[], P> = Names extends [infer N extends string, ...infer Rest extends string[]]
  ? [P[N & keyof P], ...Positional<Rest, P>]
  : [];

/**
 * An image to upload (`pets.addPhoto`): its bytes (a Buffer is a Uint8Array), a Blob (or File), or
 * — in Node — the path of a file to read. The service decides the type from the bytes; the client
 * labels them by their signature too (`image/jpeg`, `image/png`, `image/webp`).
 */
export type ImageSource = Uint8Array | ArrayBuffer | Blob | string;

/** The media types an import file is sent as: CSV or JSON Lines. */
export type ImportType = 'text/csv' | 'application/x-ndjson' | 'application/jsonl';

/**
 * A file to import (`imports.create`): streamed, never read whole — a ReadableStream or an async
 * iterable of bytes (a Node stream), or — in Node — the path of a file; or its bytes, or a Blob.
 * `type` says how to read it; `createCategories` creates the categories it names that do not exist.
 * A streamed file is sent once: a call that fails on the way is not retried (its bytes are gone).
 */
export interface ImportSource {
  readonly file: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array | Blob | string;
  readonly type: ImportType;
  readonly createCategories?: boolean;
}

type Body<K extends OperationId> = NonNullable<Op<K>['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;
type Query<K extends OperationId> = NonNullable<Op<K>['parameters']['query']>;
type Input<K extends OperationId> = Route<K>['input'] extends 'body'
  ? Body<K>
  : Route<K>['input'] extends 'binary'
    ? K extends 'createImport'
      ? ImportSource
      : ImageSource
    : Route<K>['input'] extends 'query'
      ? Query<K>
      : never;
/** The input object: required when it has a required field, optional otherwise, absent when there is none. */
type InputArgs<K extends OperationId> = [Input<K>] extends [never] ? [] : Record<never, never> extends Input<K> ? [input?: Input<K>] : [input: Input<K>];

// The header parameters of an operation's entry (none: `header?: never`, which must not become `keyof never`).
type HeaderParams<K extends OperationId> = Exclude<Op<K>['parameters']['header'], undefined>;
type HeaderNames<K extends OperationId> = [HeaderParams<K>] extends [never] ? never : Lowercase<keyof HeaderParams<K> & string>;
type OptionOf<H> = H extends keyof typeof HEADER_OPTIONS ? (typeof HEADER_OPTIONS)[H] : never;
type DocumentedHeader = { [K in OperationId]: HeaderNames<K> }[OperationId];
/** Operation K's per-call options: the common ones and those of the headers its entry documents. */
export type Options<K extends OperationId> = RequestOptions & Pick<HeaderOptions, OptionOf<HeaderNames<K>> & HeaderOption>;

type Before<K extends OperationId> = [...PathArgs<K>, ...InputArgs<K>];
export type Args<K extends OperationId> = [...Before<K>, options?: Options<K>];

type SuccessStatus = 200 | 201 | 202 | 204;
type Responses<K extends OperationId> = Op<K>['responses'];
type JsonOf<R> = R extends { content: { 'application/json': infer T } }
  ? T
  : R extends { content: { 'text/csv': unknown } }
    ? ReadableStream<string>
    : R extends { content: object }
      ? Blob
      : undefined;
/** Operation K's documented responses whose status is in S (a union of them). */
type Answer<K extends OperationId, S> = Responses<K>[Extract<keyof Responses<K>, S>];
/** What a call resolves to: the 2xx response's JSON body (nothing for a 204). */
export type Result<K extends OperationId> = JsonOf<Answer<K, SuccessStatus>>;
type Item<K extends OperationId> = Result<K> extends readonly (infer T)[] ? T : never;
type Data<K extends OperationId, S> = Route<K>['paged'] extends true ? Page<Item<K>> : JsonOf<Answer<K, S>>;

/**
 * What `withResponse()` resolves to: the status, the data the plain call resolves to, the headers, and
 * `etag` where the document says that answer carries an `ETag`. A union over the statuses, so a
 * conditional read narrows on `status` (304: `data` is undefined).
 */
export type ResponseOf<K extends OperationId, S = SuccessStatus> = {
  [St in Extract<keyof Responses<K>, S>]: { readonly status: St; readonly data: Data<K, St>; readonly headers: Headers } & (Responses<K>[St] extends {
    headers: { ETag: string };
  }
    ? { readonly etag: string }
    : unknown);
}[Extract<keyof Responses<K>, S>];

/** Options that make no conditional read: what the plain overload of a conditional read takes. */
type Unconditional<K extends OperationId> = Options<K> & { readonly ifNoneMatch?: undefined };

interface Plain<K extends OperationId> {
  (...args: Args<K>): Promise<Data<K, SuccessStatus>>;
  /** The same call, resolving to `{ status, data, headers }` and, where documented, `etag`. */
  withResponse(...args: Args<K>): Promise<ResponseOf<K>>;
}

/** A read that takes `ifNoneMatch`: only a call that passes it can resolve to `undefined` (304 Not Modified). */
interface ConditionalRead<K extends OperationId> {
  (...args: [...Before<K>, options?: Unconditional<K>]): Promise<Data<K, SuccessStatus>>;
  (...args: Args<K>): Promise<Data<K, SuccessStatus | 304>>;
  /** The same call, resolving to `{ status, data, headers, etag }`; `status: 304` (no data) when `ifNoneMatch` is current. */
  withResponse(...args: [...Before<K>, options?: Unconditional<K>]): Promise<ResponseOf<K>>;
  withResponse(...args: Args<K>): Promise<ResponseOf<K, SuccessStatus | 304>>;
}

type Paged<K extends OperationId> = K extends OperationId ? (Route<K>['paged'] extends true ? K : never) : never;
type Method<K extends OperationId> = 'if-none-match' extends HeaderNames<K> ? ConditionalRead<K> : Plain<K>;
type Iterate<K extends OperationId> = (...args: Args<K>) => AutoPaging<Item<K>>;

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

/** The filters, sort and page size of `GET /pets` besides the search words. */
export type PetFilters = Omit<NonNullable<operations['listPets']['parameters']['query']>, 'q' | 'cursor'>;

/**
 * `pets.search(q, filters)`: `pets.list({ ...filters, q })`, as a shop's search box calls it —
 * every word of `q` matched as a word or its start, ignoring case and accents (docs/api.md).
 */
export interface PetSearch {
  search(q: string, filters?: PetFilters, options?: Options<'listPets'>): Promise<Page<Result<'listPets'>[number]>>;
  /** Every match, page after page. */
  iterateSearch(q: string, filters?: PetFilters, options?: Options<'listPets'>): AutoPaging<Result<'listPets'>[number]>;
}
