// The interfaces every engine implements. Services depend on these only; only src/storage/<engine>/
// knows SQL. Repositories return domain objects, never rows, and decide nothing: a rule (what may
// change, what a change records) lives in its domain folder and runs as a workflow over a
// Transaction (docs/architecture.md).
//
// One way to say "not found": a read or a transaction method returns undefined (false for a
// yes/no question); a workflow that needs the row throws AppError('not_found').
import type { Category } from '../categories/category.schemas.ts';
import type { Event, EventType } from '../events/event.schemas.ts';
import type { ApiKey } from '../keys/key.schemas.ts';
import type { Scope, StoredPrincipal } from '../keys/key.types.ts';
import type { Pet, PetStatus, Price } from '../pets/pet.schemas.ts';
import type { Photo, PhotoBlob, PhotoVariant, ProcessedPhoto } from '../photos/photo.schemas.ts';
import type { Condition } from '../preconditions.ts';
import type { Inventory } from '../store/inventory.schemas.ts';
import type { Order, OrderStatus } from '../store/order.schemas.ts';
import type { Delivery, Webhook } from '../webhooks/webhook.schemas.ts';

/**
 * What every write carries besides its own data. A write records, in the same transaction as the
 * change (events/event.outbox.ts): the events that describe it and, for a request with an
 * Idempotency-Key, the response that reports it — so a committed change is never without its
 * event or its replayable response.
 */
export interface WriteContext<T> {
  /** When the change happens: its events' createdAt and the resource's own timestamps. */
  readonly now: Date;
  readonly idempotency?: IdempotentResponse<T>;
}

/**
 * A write to one existing resource that may carry the client's If-Match (RFC 9110 §13.1.1),
 * evaluated against the row the workflow has locked, after finding it (404 first) and before any
 * other check.
 */
export interface ConditionalWrite<T> extends WriteContext<T> {
  readonly ifMatch?: Condition;
}

/** The response an Idempotency-Key request will be answered with, made from the write's result. */
export interface IdempotentResponse<T> {
  readonly id: IdempotencyId;
  respond(result: T): StoredResponse;
}

/** An event a write records: its type and the resource after the change (or `{id}` for a deletion). */
export interface NewEvent {
  readonly type: EventType;
  readonly data: object;
}

// ---------------------------------------------------------------------------------------------
// Reads outside a workflow (each engine may cache them: they see every commit made before the
// request that asks arrived).

/** What the engines index of a pet, as the pets domain writes it (pets/pet.search.ts). */
export interface PetIndex {
  /** The words search matches, folded, one space between. */
  readonly searchText: string;
  /** What `sort=name` orders by. */
  readonly nameKey: string;
}

export interface PetCreate extends PetIndex {
  readonly name: string;
  readonly categoryId: number;
  readonly status: PetStatus;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly price?: Price;
  /** createdAt and updatedAt. */
  readonly at: Date;
}

/** The orders a listing of pets comes in; `value` is a row's position in it besides its id. */
export type PetOrderKey = 'id' | 'name' | 'price' | 'createdAt';

/** A row's keyset position: its id and, unless the order is by id, its sort value (name key, price or createdAt). */
export interface PetPosition {
  readonly id: number;
  readonly value?: string | number;
}

/**
 * Keyset page request: live pets matching every filter given, in `order` (ties by id in the same
 * direction), after `after` when given, at most `limit`. The pets domain asks only for the
 * combinations an index serves (pets/pet.listing.ts).
 */
export interface PetQuery {
  readonly limit: number;
  /** By id when not given. */
  readonly order?: PetOrderKey;
  readonly descending?: boolean;
  readonly after?: PetPosition;
  readonly status?: PetStatus;
  readonly categoryId?: number;
  /** Pets carrying every one of these tags. */
  readonly tags?: readonly string[];
  /** Search words, folded (pets/pet.search.ts): each must be a word, or the start of one, of the pet's search text. */
  readonly words?: readonly string[];
}

/**
 * Pets. A withdrawn pet keeps its row (orders name it; its id is never reused) but no read returns
 * it, and no lock finds it.
 */
export interface PetRepository {
  get(id: number): Promise<Pet | undefined>;
  list(query: PetQuery): Promise<Pet[]>;
  /** Live pets per status, and the value of the available ones per currency, as of one committed state; read from maintained sums, never summed. */
  inventory(): Promise<Inventory>;
  /** Pets whose index was never written (rows of the release before migration 9), lowest ids first. */
  unindexed(limit: number): Promise<Pet[]>;
}

/**
 * Photos, read side. The bytes sit behind this interface and PhotoTx only (docs/operations.md,
 * "Photos"): in the database by default; an object store would implement `blob`, `retain` and
 * `release` the same way (put by hash, delete after the last release commits).
 */
export interface PhotoRepository {
  /** The live pet's photos, oldest first; undefined when the pet is not live. */
  list(petId: number): Promise<Photo[] | undefined>;
  /** The stored bytes of a display image or its thumbnail, by the display image's hash. */
  blob(hash: string, variant: PhotoVariant): Promise<PhotoBlob | undefined>;
}

/** Categories. A deleted category keeps its row (withdrawn pets name it) and frees its name. */
export interface CategoryRepository {
  list(): Promise<Category[]>;
  get(id: number): Promise<Category | undefined>;
}

export interface OrderQuery {
  readonly limit: number;
  readonly afterId: number;
  readonly status?: OrderStatus;
  readonly petId?: number;
}

export interface OrderRepository {
  get(id: number): Promise<Order | undefined>;
  list(query: OrderQuery): Promise<Order[]>;
}

export interface ApiKeyCreate {
  readonly name: string;
  readonly prefix: string;
  readonly hash: string; // hex SHA-256 of the whole key
  readonly scopes: readonly Scope[];
  readonly expiresAt: Date | null;
  /** The key that makes it; null or absent for a top-level key. */
  readonly parentId?: number | null;
  /** An owner key manages every key; absent → false. */
  readonly owner?: boolean;
}

/** Keyset page request over keys: ascending ids after `afterId`. */
export interface KeyQuery {
  readonly limit: number;
  readonly afterId: number;
  /** Only this key and its descendants; undefined → every key. */
  readonly within?: number;
}

/** Keyset page request over the live descendants of a key: ascending ids after `afterId`. */
export interface DescendantQuery {
  readonly limit: number;
  readonly afterId: number;
  readonly under: number;
  /** Keys expired at this instant are left out, as they are ended already. */
  readonly liveAt: Date;
}

export interface ApiKeyRepository {
  /**
   * The key with this hash, revoked or expired or not; every request asks. Whether it still works
   * is decided by the caller, against its clock (KeyVerifier, `keyIsActive`).
   */
  findByHash(hash: string): Promise<StoredPrincipal | undefined>;
  /** Every key (or every key of a subtree, `within`), revoked and expired ones included. */
  list(query: KeyQuery): Promise<ApiKey[]>;
  get(id: number): Promise<ApiKey | undefined>;
  /**
   * A page of the live keys below `under` (its descendants, not the key itself; none revoked, none
   * expired at `liveAt`): the keys a revocation of `under` would end besides it, ascending by id.
   */
  descendants(query: DescendantQuery): Promise<ApiKey[]>;
  /** The ids of the key's ancestors: its parent, the parent's parent, … (none for a top-level or unknown key). */
  ancestors(id: number): Promise<number[]>;
  count(): Promise<number>;
}

/** One Idempotency-Key: whose it is, which operation it was sent to, and the key itself. */
export interface IdempotencyId {
  readonly subject: string; // Caller.subject: key:<id> or bootstrap:<hash prefix>
  readonly operation: string; // e.g. 'POST /v1/pets'
  readonly key: string; // 1–255 characters
}

/** The first response, replayed to repeats: only successful (2xx) responses are stored. */
export interface StoredResponse {
  readonly status: number;
  readonly body: string; // serialized JSON, as sent
  readonly location: string | null;
}

export interface IdempotencyRecord {
  /** SHA-256 of the canonical request body. */
  readonly fingerprint: string;
  /** undefined while the first request is still in flight. */
  readonly response: StoredResponse | undefined;
}

/** The claims of Idempotency-Keys, before a request's write; the write completes its claim (IdempotencyTx). */
export interface IdempotencyRepository {
  /**
   * Atomically claims `id` for a request whose body has `fingerprint`, unless a live record
   * exists. A record is dead when created before `expiredBefore`, or when it is still in flight
   * but was claimed before `abandonedBefore` (its process died). Returns undefined when the claim
   * was taken (a dead record is replaced), otherwise the live record, untouched.
   */
  claim(id: IdempotencyId, fingerprint: string, now: Date, expiredBefore: Date, abandonedBefore: Date): Promise<IdempotencyRecord | undefined>;
  /** Drops an in-flight claim (the request failed), so the key can be used again. */
  release(id: IdempotencyId): Promise<void>;
  /** Deletes records created before `before`; returns how many. */
  purge(before: Date): Promise<number>;
}

/** Keyset page request over the event feed: ascending ids after `afterId`. */
export interface EventQuery {
  readonly limit: number;
  readonly afterId: number;
  readonly type?: EventType;
  /** Only events of these types (the ones the reading key may read: events/event.access.ts); absent: every type. */
  readonly types?: readonly EventType[];
}

/** The outbox, read side: events are written by workflows, inside their transactions (EventTx). */
export interface EventRepository {
  list(query: EventQuery): Promise<Event[]>;
  /** Deletes events created before `before`; returns how many. */
  purge(before: Date): Promise<number>;
}

export interface WebhookRepository {
  get(id: number): Promise<Webhook | undefined>;
  /** Keyset page: ids > afterId, ascending. */
  list(query: { readonly limit: number; readonly afterId: number }): Promise<Webhook[]>;
  /** The endpoint's delivery log, newest first: ids < beforeId. */
  deliveries(webhookId: number, query: { readonly limit: number; readonly beforeId: number }): Promise<Delivery[]>;
  /** Whether any attempt is due (DeliveryTx.lease); an idle dispatcher asks this, without a transaction. */
  anyDue(now: Date): Promise<boolean>;
  /** createdAt of the oldest event still waiting for a delivery to an enabled endpoint. */
  oldestPending(): Promise<string | undefined>;
  /** Deletes finished delivery log entries written before `before`; returns how many. */
  purge(before: Date): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// The transaction a workflow runs over (Storage.transaction). Each method is one statement or
// two; "lock" means the row stays as read until the transaction ends (PostgreSQL: the row lock
// named; SQLite: the database write lock every transaction holds).

export interface PetTx {
  /** The live pet, locked FOR UPDATE. */
  lock(id: number): Promise<Pet | undefined>;
  /**
   * Inserts a pet into a live category, holding the category as CategoryTx.keepLive does;
   * undefined (nothing inserted) when categoryId names no live category.
   */
  insert(input: PetCreate): Promise<Pet | undefined>;
  /** Writes every field of `next`, a pet this transaction locked as `current` (its tags are replaced). */
  update(current: Pet, next: Pet, index: PetIndex): Promise<Pet>;
  /** Writes the index of a pet that has none (PetRepository.unindexed); false when it has one by now. */
  reindex(id: number, index: PetIndex): Promise<boolean>;
  withdraw(pet: Pet, at: Date): Promise<void>;
  /** Whether a live pet belongs to the category. */
  anyIn(categoryId: number): Promise<boolean>;
}

export interface PhotoTx {
  /** The photos of a pet this transaction locked, oldest first. */
  list(petId: number): Promise<Photo[]>;
  /**
   * One more reference to the photo's bytes, storing them if no photo holds them yet; locks the
   * blob's row (PostgreSQL: an upsert), so it queues behind a release of the same image.
   */
  retain(photo: ProcessedPhoto, at: Date): Promise<void>;
  /** One reference less; the bytes are deleted with the last one. */
  release(hash: string): Promise<void>;
  /** Adds a photo (its bytes retained) to a pet this transaction locked. */
  attach(petId: number, hash: string, at: Date): Promise<Photo>;
  /** Removes the pet's photo; undefined (nothing removed) when the pet has no photo with this id. */
  detach(petId: number, photoId: number): Promise<Photo | undefined>;
  /** Writes the pet's photo list (display hashes, oldest first) on a pet this transaction locked; returns the pet. */
  setPetPhotos(petId: number, hashes: readonly string[], at: Date): Promise<Pet>;
}

export interface CategoryTx {
  /**
   * The live category, locked: for 'rename' against other writers of the row (FOR NO KEY
   * UPDATE); for 'remove' also against transactions putting a pet into it (FOR UPDATE, which
   * waits for their FOR KEY SHARE).
   */
  lock(id: number, purpose: 'rename' | 'remove'): Promise<Category | undefined>;
  /** Whether the category is live; it then stays live until the transaction ends (FOR KEY SHARE). */
  keepLive(id: number): Promise<boolean>;
  /** undefined (nothing written) when a live category already has the name, in any case. */
  insert(name: string): Promise<Category | undefined>;
  /** undefined (nothing written) when another live category already has the name, in any case. */
  rename(id: number, name: string): Promise<Category | undefined>;
  remove(id: number, at: Date): Promise<void>;
}

export interface OrderTx {
  /** The order, locked FOR UPDATE. */
  lock(id: number): Promise<Order | undefined>;
  /** `price`: the pet's at the time, recorded on the order; null when it had none. */
  insert(petId: number, status: OrderStatus, price: Price | null, at: Date): Promise<Order>;
  setStatus(id: number, status: OrderStatus, at: Date): Promise<Order>;
  /** Whether an order for the pet is in one of `statuses`. */
  exists(petId: number, statuses: readonly OrderStatus[]): Promise<boolean>;
}

export interface ApiKeyTx {
  insert(input: ApiKeyCreate, at: Date): Promise<ApiKey>;
  /** The key, revoked or not, locked FOR NO KEY UPDATE. */
  lock(id: number): Promise<ApiKey | undefined>;
  /** Revokes the key and every descendant not revoked yet, at `at`; how many it revoked. */
  revokeTree(id: number, at: Date): Promise<number>;
  /** As ApiKeyRepository.ancestors, inside the transaction. */
  ancestors(id: number): Promise<number[]>;
  /** How many keys of the subtree of `id` (the key and the keys below it) are neither revoked nor expired at `at`. */
  countLive(id: number, at: Date): Promise<number>;
}

export interface IdempotencyTx {
  /** Stores the response of an in-flight claim; false when there is no such claim (it was taken over or released). */
  complete(id: IdempotencyId, response: StoredResponse): Promise<boolean>;
}

export interface EventTx {
  /**
   * Publishes the events of a write: inserts them, in order, with `at` as their createdAt, and owes
   * each a first delivery attempt, due at `at`, to every enabled endpoint subscribed to its type
   * (webhook_subscriptions, or webhooks.all_events) — in one statement where the engine can. Each
   * records its transaction's id, by which readers keep the feed in commit order without making
   * writers wait for each other (Dialect.settled, docs/events.md).
   */
  publish(events: readonly NewEvent[], at: Date): Promise<void>;
  /** The type of the event, or undefined when it is not kept (purged) or was never written. */
  typeOf(sequence: number): Promise<EventType | undefined>;
}

/** The fields of an endpoint a workflow sets; `events` null = every type, future ones included. */
export interface WebhookCreate {
  readonly url: string;
  readonly events: readonly EventType[] | null;
  readonly description: string | null;
  /** The signing secret, sealed (webhooks/webhook.secret-box.ts): engines store it as given. */
  readonly secret: string;
  /** The URL's destination (`destination` in webhooks/webhook.address.ts): deliveries are limited per destination. */
  readonly host: string;
  /** The API key registering it (null: a bootstrap key); the endpoint stops with it. */
  readonly keyId: number | null;
}

/** An endpoint as its workflows see it: what the API shows, and since when its attempts have been failing. */
export interface WebhookState {
  readonly webhook: Webhook;
  /** The first failed attempt since the last success; null when the last attempt succeeded. */
  readonly failingSince: string | null;
  /** Its destination as stored (WebhookCreate.host); null for an endpoint older than migration 12. */
  readonly host: string | null;
}

/** What a workflow writes of an endpoint it locked. */
export interface WebhookFields {
  readonly url: string;
  readonly host: string;
  readonly keyId: number | null;
  readonly events: readonly EventType[] | null;
  readonly description: string | null;
  readonly enabled: boolean;
  readonly failingSince: string | null;
}

export interface WebhookTx {
  insert(input: WebhookCreate, at: Date): Promise<Webhook>;
  /** The endpoint, locked FOR NO KEY UPDATE: whoever changes its deliveries locks it first, then them. */
  lock(id: number): Promise<WebhookState | undefined>;
  /** Writes every field of an endpoint this transaction locked (its subscriptions included). */
  update(id: number, fields: WebhookFields, at: Date): Promise<Webhook>;
  setFailingSince(id: number, since: string | null): Promise<void>;
  /** Replaces the secret; the one it replaces keeps signing until `previousUntil`. undefined for an unknown id. */
  rotateSecret(id: number, secret: string, previousUntil: Date, at: Date): Promise<Webhook | undefined>;
  /** Deletes the endpoint with its subscriptions and its delivery log; false for an unknown id. */
  delete(id: number): Promise<boolean>;
  /**
   * Enabled endpoints with an attempt due (see DeliveryTx.lease), fewer than `limits.perEndpoint`
   * attempts in flight and fewer than `limits.perHost` in flight to their host, least recently
   * claimed first, at most `max`. PostgreSQL locks them FOR NO KEY UPDATE, skipping endpoints
   * another claimer holds.
   */
  claimable(now: Date, limits: { readonly perEndpoint: number; readonly perHost: number }, max: number): Promise<ClaimableEndpoint[]>;
  /** How many endpoints there are (WEBHOOK_MAX_ENDPOINTS), counted after every registration committed before. */
  countForInsert(): Promise<number>;
  /** How many endpoints the key `keyId` and the keys below it own; call after countForInsert (its turn-taking covers this count). */
  countOwnedBelow(keyId: number): Promise<number>;
  /** Records that a claim served the endpoint now: the least recently served go first. */
  touch(id: number, at: Date): Promise<void>;
}

/** An endpoint a claim may lease attempts of, and its destination (null: not known, for an endpoint older than migration 12). */
export interface ClaimableEndpoint {
  readonly id: number;
  readonly host: string | null;
}

/** A pending attempt and its lease: in flight while `leaseUntil` is in the future. */
export interface PendingAttempt {
  readonly delivery: Delivery;
  readonly leaseUntil: string | null;
}

/** A lease on due attempts, taken by one dispatcher. */
export interface Lease {
  readonly now: Date;
  /** The attempts are the holder's until then; after it another may lease them again. */
  readonly until: Date;
  /** Names the holder: only it can record the attempts' outcomes. */
  readonly token: string;
}

/** One attempt leased to a dispatcher, with what sending it takes. */
export interface LeasedAttempt {
  readonly deliveryId: number;
  readonly webhookId: number;
  readonly url: string;
  /** The key the endpoint belongs to: it is not sent while that key does not stand (null: none). */
  readonly keyId: number | null;
  readonly attempt: number;
  readonly eventId: number;
  /** undefined when the event was purged before it could be delivered. */
  readonly event: Event | undefined;
  /** The endpoint's signing secret, sealed. */
  readonly secret: string;
  /** The one the last rotation replaced, and until when it was to keep signing. */
  readonly previousSecret: { readonly secret: string; readonly until: string } | null;
}

/** What an attempt's outcome writes on its log entry. */
export interface AttemptRecord {
  readonly deliveryId: number;
  /** The lease's token: nothing is written once the lease was lost. */
  readonly token: string;
  readonly status: 'succeeded' | 'failed';
  readonly httpStatus: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly attemptedAt: Date;
  readonly nextAttemptAt: Date | null;
}

export interface DeliveryTx {
  get(webhookId: number, id: number): Promise<Delivery | undefined>;
  /** The endpoint's pending attempt of the event, if it has one. */
  pending(webhookId: number, eventSequence: number): Promise<PendingAttempt | undefined>;
  /** Makes a pending attempt due at `at`. */
  dueAt(id: number, at: Date): Promise<Delivery>;
  /** The highest attempt number the endpoint has for the event (0: none). */
  lastAttempt(webhookId: number, eventSequence: number): Promise<number>;
  /** A pending attempt, due at `due`. */
  insertAttempt(webhookId: number, eventSequence: number, attempt: number, due: Date, at: Date): Promise<Delivery>;
  /** Marks the endpoint's pending attempts failed with `error`, their leases dropped. */
  failPending(webhookId: number, error: string): Promise<void>;
  /** Logs a `webhook.disabled` entry. */
  logDisabled(webhookId: number, error: string, at: Date): Promise<void>;
  /** The endpoint's attempts leased until after `now`. */
  inFlight(webhookId: number, now: Date): Promise<number>;
  /** The attempts to endpoints on `host` leased until after `now`. */
  inFlightToHost(host: string, now: Date): Promise<number>;
  /**
   * Leases at most `limit` of the endpoint's due attempts, in event-id order: pending, not leased
   * (or the lease ran out: its holder died), and either a first attempt (due at once, so first
   * attempts go out in event-id order whatever the clocks say) or a retry whose time has come.
   * Returns how many it leased.
   */
  lease(webhookId: number, lease: Lease, limit: number): Promise<number>;
  /** The attempts leased under `token`, with their endpoints and events. */
  leased(token: string): Promise<LeasedAttempt[]>;
  /** Writes an attempt's outcome and drops its lease; false (nothing written) when the lease was lost. */
  record(outcome: AttemptRecord): Promise<boolean>;
}

export interface Transaction {
  readonly pets: PetTx;
  readonly categories: CategoryTx;
  readonly orders: OrderTx;
  readonly apiKeys: ApiKeyTx;
  readonly idempotency: IdempotencyTx;
  readonly events: EventTx;
  readonly webhooks: WebhookTx;
  readonly deliveries: DeliveryTx;
  readonly photos: PhotoTx;
}

/**
 * Engine-neutral connection gauges for /metrics. A pool reports its own figures (PostgreSQL:
 * pg.Pool totalCount / idleCount / waitingCount); SQLite holds one synchronous connection, so it
 * is always 1 / 1 / 0 whenever the metrics are read.
 */
export interface StorageStats {
  readonly connections: number;
  readonly idle: number;
  readonly waiting: number;
}

export interface Storage {
  readonly engine: 'sqlite' | 'postgres';
  readonly pets: PetRepository;
  readonly categories: CategoryRepository;
  readonly orders: OrderRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly idempotency: IdempotencyRepository;
  readonly events: EventRepository;
  readonly webhooks: WebhookRepository;
  readonly photos: PhotoRepository;
  /**
   * The one way to write: runs `work` in one transaction, committed when it resolves and rolled
   * back when it throws; resolves only once committed. `work` uses `tx` and nothing else of the
   * storage until it resolves (SQLite runs one workflow at a time, and its reads wait for it).
   * SQLite: the workflows queued in one turn of the event loop run one after the other in one
   * transaction, each in its own savepoint (group commit). PostgreSQL: one READ COMMITTED
   * transaction on one connection; the tx methods take the row locks they name.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /** A random secret created once per database, shared by every instance (signs cursors). */
  secret(name: string): Promise<string>;
  /** Resolves when the database answers a trivial query and migrations are applied. */
  ping(): Promise<void>;
  /** Connection gauges; optional so an engine without meaningful figures can omit it. */
  stats?(): StorageStats;
  close(): Promise<void>;
}
