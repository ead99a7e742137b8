// Compiled by test/types.test.ts with `tsc --strict`: every `@ts-expect-error` line must fail to
// compile (else tsc reports the directive as unused), every other line must compile.
import {
  type ErrorCode,
  type ErrorStatus,
  type HttpStatus,
  type Order,
  type Page,
  type Pet,
  Petstore,
  PetstoreError,
  type PetstoreErrorCode,
} from '../../src/index.ts';

declare const petstore: Petstore;

export async function rightUse(): Promise<void> {
  const page: Page<Pet> = await petstore.pets.list({ status: 'available', limit: 50 });
  const next: string | null = page.nextCursor;
  await petstore.pets.list({ cursor: next ?? undefined });
  await petstore.pets.list();
  const pet: Pet = await petstore.pets.create({ name: 'Rex', categoryId: 1 });
  await petstore.pets.create({ name: 'Tom', categoryId: 2, status: 'pending' }, { idempotencyKey: 'k-1' });
  const id: number = pet.id;
  const fetched: Pet = await petstore.pets.get(id, { signal: AbortSignal.timeout(1000) });
  for await (const p of petstore.pets.iterate({ status: 'sold' })) p.name.toUpperCase();
  for await (const o of petstore.orders.iterate({ petId: fetched.id, status: 'placed' })) o.createdAt.toUpperCase();
  const order: Order = await petstore.orders.place({ petId: pet.id });
  await petstore.orders.update(order.id, { status: 'approved' });
  await petstore.orders.get(order.id);
  (await petstore.categories.list()).map((c) => c.name);
  const limit = petstore.rateLimit?.remaining;
  void limit;
  try {
    await petstore.pets.get(1);
  } catch (err) {
    if (err instanceof PetstoreError) {
      const code: PetstoreErrorCode = err.code;
      const documented: ErrorCode = 'unknown_category';
      void [code, documented, err.status, err.requestId, err.retryAfter];
      if (err.status === 404) void err.message;
      // @ts-expect-error no such HTTP status: status is a union, not any number
      if (err.status === 4044) void err.message;
      if (err.code === 'unexpected_response') {
        const any: HttpStatus = err.status; // a proxy's 502, a 2xx whose body is not JSON
        void any;
      } else {
        const listed: ErrorStatus = err.status;
        // @ts-expect-error a documented code comes with a status the document lists, and it lists no 418
        if (err.status === 418) void listed;
      }
    }
  }
  const firstTen: Pet[] = await petstore.pets.iterate({ status: 'available' }).toArray({ limit: 10 });
  void firstTen;
  // @ts-expect-error toArray needs a limit
  await petstore.pets.iterate().toArray();
  // @ts-expect-error the items of orders.iterate are orders
  const wrong: Pet[] = await petstore.orders.iterate().toArray({ limit: 10 });
  void wrong;
  const event = await Petstore.webhooks.verify('{}', { 'webhook-id': 'x' }, 'whsec_AAAA');
  event.type.toUpperCase();
  await petstore.webhooks.verify('{}', { 'webhook-id': 'x' }, 'whsec_AAAA');
  const endpoint = await petstore.webhookEndpoints.create({ url: 'https://shop.example.com/hooks' });
  for await (const delivery of petstore.webhookEndpoints.iterateDeliveries(endpoint.id)) delivery.id.toFixed();
}

export async function concurrency(id: number, cachedTag: string | undefined): Promise<void> {
  // Read with the ETag, write on condition of it.
  const { data: pet, etag, status, headers } = await petstore.pets.get.withResponse(id);
  const code: 200 = status;
  void [code, headers.get('x-request-id')];
  const renamed: Pet = await petstore.pets.update(pet.id, { name: 'Rex II' }, { ifMatch: etag });
  const next: string = (await petstore.pets.update.withResponse(renamed.id, { status: 'sold' }, { ifMatch: etag })).etag;
  await petstore.pets.delete(id, { ifMatch: next });
  await petstore.pets.delete(id, { ifMatch: '*' });
  await petstore.pets.delete(id);
  const placed = await petstore.orders.place.withResponse({ petId: id });
  const created: 201 = placed.status;
  void created;
  await petstore.orders.update(placed.data.id, { status: 'approved' }, { ifMatch: placed.etag });
  // A conditional read may answer "not modified": undefined, or status 304 with no data.
  const maybe: Pet | undefined = await petstore.pets.get(id, { ifNoneMatch: etag });
  if (maybe !== undefined) maybe.name.toUpperCase();
  const fresh = (await petstore.pets.get(id, { ifNoneMatch: cachedTag })) ?? pet;
  fresh.name.toUpperCase();
  const polled = await petstore.orders.get.withResponse(placed.data.id, { ifNoneMatch: placed.etag });
  if (polled.status === 304) {
    const none: undefined = polled.data;
    void [none, polled.etag.length];
  } else polled.data.status.toUpperCase();
  // Without ifNoneMatch, reads resolve to the resource itself.
  const plain: Pet = await petstore.pets.get(id, { ifNoneMatch: undefined, timeoutMs: 500 });
  const order: Order = (await petstore.orders.get.withResponse(placed.data.id)).data;
  void [plain, order];
  // Every method has withResponse; a page keeps its shape under `data`.
  const page = await petstore.pets.list.withResponse({ limit: 5 });
  void [page.data.nextCursor, page.data.data[0]?.name, page.headers.get('link')];
  const category = await petstore.categories.get.withResponse(1);
  category.data.name.toUpperCase();
}

export async function misuse(): Promise<void> {
  // @ts-expect-error 'bogus' is not a PetStatus
  await petstore.pets.list({ status: 'bogus' });
  // @ts-expect-error categoryId is required
  await petstore.pets.create({ name: 'Rex' });
  // @ts-expect-error a body is required
  await petstore.pets.create();
  // @ts-expect-error unknown field
  await petstore.pets.create({ name: 'Rex', categoryId: 1, weight: 12 });
  // @ts-expect-error limit is a number
  await petstore.pets.list({ limit: '10' });
  // @ts-expect-error unknown query parameter
  await petstore.pets.list({ stauts: 'sold' });
  // @ts-expect-error petId is a number
  await petstore.pets.get('1');
  // @ts-expect-error petId is required
  await petstore.pets.get();
  // @ts-expect-error 'shipped' is not an OrderStatus
  await petstore.orders.update(1, { status: 'shipped' });
  // @ts-expect-error the order id comes first
  await petstore.orders.update({ status: 'approved' });
  // @ts-expect-error placeOrder takes a petId
  await petstore.orders.place({ id: 1 });
  // @ts-expect-error categories are not paged: no iterate
  petstore.categories.iterate();
  // @ts-expect-error no such resource
  petstore.users.list();
  // @ts-expect-error no such method
  petstore.pets.purge(1);
  // @ts-expect-error webhook endpoints are petstore.webhookEndpoints; petstore.webhooks verifies deliveries
  await petstore.webhooks.create({ url: 'https://shop.example.com/hooks' });
  // @ts-expect-error verify and sign are not API operations
  petstore.webhookEndpoints.verify;
  const pet = await petstore.pets.get(1);
  // @ts-expect-error Pet has no such field
  pet.weight;
  // @ts-expect-error status is a union, not any string
  const s: 'available' = pet.status;
  void s;
  const page = await petstore.pets.list();
  // @ts-expect-error a page is { data, nextCursor }, not an array
  page.map((p) => p.id);
  // @ts-expect-error the options object is the last argument
  await petstore.pets.list({}, { idempotencyKey: 1 });
  // @ts-expect-error apiKey is required
  new Petstore({ baseUrl: 'https://api.example.com/v1' });
  // @ts-expect-error not a documented code
  const code: ErrorCode = 'unexpected_response';
  void code;
}

export async function conditionalMisuse(etag: string): Promise<void> {
  // @ts-expect-error getCategory documents no If-None-Match
  await petstore.categories.get(1, { ifNoneMatch: etag });
  // @ts-expect-error listPets documents no If-None-Match
  await petstore.pets.list({}, { ifNoneMatch: etag });
  // @ts-expect-error a read takes no If-Match
  await petstore.pets.get(1, { ifMatch: etag });
  // @ts-expect-error updateCategory documents no If-Match
  await petstore.categories.update(1, { name: 'Cats' }, { ifMatch: etag });
  // @ts-expect-error only the POSTs that document it take an Idempotency-Key
  await petstore.pets.update(1, { name: 'Rex' }, { idempotencyKey: 'k-1' });
  // @ts-expect-error an ETag is a string
  await petstore.pets.update(1, { name: 'Rex' }, { ifMatch: 1 });
  const conditional = await petstore.pets.get(1, { ifNoneMatch: etag });
  // @ts-expect-error possibly undefined (not modified): narrow first
  conditional.name;
  const polled = await petstore.orders.get.withResponse(1, { ifNoneMatch: etag });
  // @ts-expect-error no data on a 304: narrow on status first
  polled.data.status;
  // @ts-expect-error getCategory's answer documents no ETag
  (await petstore.categories.get.withResponse(1)).etag;
  // @ts-expect-error an unconditional read answers 200 only
  const notModified: 304 = (await petstore.pets.get.withResponse(1)).status;
  void notModified;
}
