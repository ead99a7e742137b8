// The repository interfaces every engine implements. Routes and services depend on these only;
// only src/storage/<engine>/ knows SQL. Repositories return domain objects, never rows.
import type { Category } from '../categories/category.schemas.ts';
import type { Event, EventType } from '../events/event.schemas.ts';
import type { ApiKey } from '../keys/key.schemas.ts';
import type { Scope, StoredPrincipal } from '../keys/key.types.ts';
import type { Pet, PetStatus } from '../pets/pet.schemas.ts';
import type { Condition } from '../preconditions.ts';
import type { Inventory } from '../store/inventory.schemas.ts';
import type { Order, OrderStatus } from '../store/order.schemas.ts';
import type { Delivery, Webhook } from '../webhooks/webhook.schemas.ts';

/**
 * What every write carries into its transaction besides its own data. A write records, in the
 * same transaction as the change: the events that describe it (the outbox read by the event feed
 * and the webhook deliveries) and, for a request with an Idempotency-Key, the response that
 * reports it — so a committed change is never without its event or its replayable response.
 */
export interface WriteContext<T> {
  /** When the change happens: its events' createdAt and the resource's own timestamps. */
  readonly now: Date;
  readonly idempotency?: IdempotentResponse<T>;
}

/**
 * A write to one existing resource that may carry the client's If-Match (RFC 9110 §13.1.1). The
 * engine evaluates it inside the write's transaction, against the row it has locked, after
 * finding the resource (404 first) and before any other check: when it names no current tag the
 * write throws AppError('precondition_failed') and changes nothing.
 */
export interface ConditionalWrite<T> extends WriteContext<T> {
  readonly ifMatch?: Condition;
}

/** The response an Idempotency-Key request will be answered with, made from the write's result. */
export interface IdempotentResponse<T> {
  readonly id: IdempotencyId;
  respond(result: T): StoredResponse;
}

export interface PetCreate {
  readonly name: string;
  readonly categoryId: number;
  readonly status: PetStatus;
}

/** Keyset page request: rows with id > afterId, ascending, at most `limit`. */
export interface PetQuery {
  readonly limit: number;
  readonly afterId: number;
  readonly status?: PetStatus;
  readonly categoryId?: number;
}

/** The fields a PATCH sets; absent ones keep their value. */
export interface PetPatch {
  readonly name?: string;
  readonly categoryId?: number;
  readonly status?: PetStatus;
}

/**
 * Pets. A withdrawn pet keeps its row (orders name it; its id is never reused) but no read below
 * returns it, and writes treat it as absent.
 */
export interface PetRepository {
  /** Records pet.created. Throws AppError('unknown_category') when categoryId names no live category. */
  create(input: PetCreate, ctx: WriteContext<Pet>): Promise<Pet>;
  get(id: number): Promise<Pet | undefined>;
  list(query: PetQuery): Promise<Pet[]>;
  /**
   * Applies `patch`; records pet.updated when the pet really changed (an unchanged pet is not
   * written). Throws AppError('not_found'), ('precondition_failed'), ('unknown_category'), or
   * ('pet_has_open_order') when the status would change while an order for the pet is open.
   */
  update(id: number, patch: PetPatch, ctx: ConditionalWrite<Pet>): Promise<Pet>;
  /**
   * Withdraws the pet; records pet.deleted with `{id}`. Throws AppError('not_found') (also for a
   * pet already withdrawn), ('precondition_failed') or ('pet_has_open_order').
   */
  withdraw(id: number, ctx: ConditionalWrite<void>): Promise<void>;
  /** Live pets per status, as of one committed state; read from maintained counts, never counted. */
  inventory(): Promise<Inventory>;
}

/** Categories. A deleted category keeps its row (withdrawn pets name it) and frees its name. */
export interface CategoryRepository {
  list(): Promise<Category[]>;
  get(id: number): Promise<Category | undefined>;
  /** Records category.created. Throws AppError('category_exists') when a live category has the name (any case). */
  create(name: string, ctx: WriteContext<Category>): Promise<Category>;
  /**
   * Renames; records category.updated when the name really changed. Throws AppError('not_found')
   * or ('category_exists').
   */
  rename(id: number, name: string, ctx: WriteContext<Category>): Promise<Category>;
  /**
   * Deletes; records category.deleted with `{id}`. Throws AppError('not_found') or
   * ('category_in_use') while a live pet belongs to it.
   */
  remove(id: number, ctx: WriteContext<void>): Promise<void>;
}

export interface OrderQuery {
  readonly limit: number;
  readonly afterId: number;
  readonly status?: OrderStatus;
  readonly petId?: number;
}

export interface OrderRepository {
  /**
   * Places an order and marks the pet `pending`, atomically; records order.placed and
   * pet.updated. Throws AppError('unknown_pet') or AppError('pet_not_available').
   */
  place(petId: number, ctx: WriteContext<Order>): Promise<Order>;
  get(id: number): Promise<Order | undefined>;
  list(query: OrderQuery): Promise<Order[]>;
  /**
   * Moves an order to `to` and the pet to the status that follows, atomically, when the
   * transition from the order's current status is allowed (see store/order.lifecycle.ts);
   * records order.<status> and, when the pet's status changes, pet.updated.
   * Throws AppError('not_found'), AppError('precondition_failed') or AppError('invalid_transition').
   */
  transition(id: number, to: OrderStatus, ctx: ConditionalWrite<Order>): Promise<Order>;
}

export interface ApiKeyCreate {
  readonly name: string;
  readonly prefix: string;
  readonly hash: string; // hex SHA-256 of the whole key
  readonly scopes: readonly Scope[];
  readonly expiresAt: Date | null;
}

/** Keyset page request over keys: ascending ids after `afterId`. */
export interface KeyQuery {
  readonly limit: number;
  readonly afterId: number;
}

export interface ApiKeyRepository {
  create(input: ApiKeyCreate, ctx: WriteContext<ApiKey>): Promise<ApiKey>;
  /**
   * The key with this hash unless it is revoked, with its expiry; every request asks. Whether it
   * has expired is decided by the caller, against its clock (KeyVerifier).
   */
  findActiveByHash(hash: string): Promise<StoredPrincipal | undefined>;
  /** Every key, revoked and expired ones included. */
  list(query: KeyQuery): Promise<ApiKey[]>;
  get(id: number): Promise<ApiKey | undefined>;
  /** true when an active key was revoked by this call. */
  revoke(id: number, now: Date): Promise<boolean>;
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
}

/** The outbox, read side: events are written by the other repositories, inside their transactions. */
export interface EventRepository {
  list(query: EventQuery): Promise<Event[]>;
  /** Deletes events created before `before`; returns how many. */
  purge(before: Date): Promise<number>;
}

export interface WebhookCreate {
  readonly url: string;
  /** null = every type, future ones included. */
  readonly events: readonly EventType[] | null;
  readonly description: string | null;
  /** The signing secret, sealed (webhooks/webhook.secret-box.ts): engines store it as given. */
  readonly secret: string;
}

/** A change to an endpoint; absent fields stay as they are. */
export interface WebhookChange {
  readonly url?: string;
  readonly events?: readonly EventType[] | null;
  readonly description?: string | null;
  readonly enabled?: boolean;
}

/** What a dispatcher asks for: due attempts, at most `max`, at most `perEndpoint` in flight per endpoint. */
export interface ClaimRequest {
  readonly now: Date;
  /** The claimed attempts are this dispatcher's until then; after it another may claim them again. */
  readonly leaseUntil: Date;
  /** Names this claim; only its holder can record the attempts' results. */
  readonly token: string;
  readonly max: number;
  readonly perEndpoint: number;
}

/** One attempt a dispatcher now holds. */
export interface ClaimedAttempt {
  readonly deliveryId: number;
  readonly webhookId: number;
  readonly url: string;
  readonly attempt: number;
  readonly eventId: number;
  /** undefined when the event was purged before it could be delivered. */
  readonly event: Event | undefined;
  /** The sealed secrets that sign it: the current one, then the previous one while it still signs. */
  readonly secrets: readonly string[];
}

/** The outcome of one attempt, as the dispatcher reports it. */
export interface AttemptResult {
  readonly attempt: ClaimedAttempt;
  readonly token: string;
  readonly succeeded: boolean;
  readonly httpStatus: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly attemptedAt: Date;
  /** When the next attempt is due; null when this was the last one (or it succeeded). */
  readonly retryAt: Date | null;
  /** A failure disables the endpoint when its failures began at or before this instant. */
  readonly disableIfFailingSince: Date;
}

export interface WebhookRepository {
  create(input: WebhookCreate, now: Date): Promise<Webhook>;
  get(id: number): Promise<Webhook | undefined>;
  /** Keyset page: ids > afterId, ascending. */
  list(query: { readonly limit: number; readonly afterId: number }): Promise<Webhook[]>;
  /**
   * Applies `change`; undefined for an unknown id. Disabling fails the endpoint's pending
   * deliveries; enabling starts afresh (only events recorded from then on are sent).
   */
  update(id: number, change: WebhookChange, now: Date): Promise<Webhook | undefined>;
  /** true when it existed; its delivery log goes with it. */
  delete(id: number): Promise<boolean>;
  /** Replaces the secret (sealed); the current one keeps signing until `previousUntil`. undefined for an unknown id. */
  rotateSecret(id: number, secret: string, previousUntil: Date, now: Date): Promise<Webhook | undefined>;
  /** The endpoint's delivery log, newest first: ids < beforeId. */
  deliveries(webhookId: number, query: { readonly limit: number; readonly beforeId: number }): Promise<Delivery[]>;
  /**
   * Makes the event of delivery `deliveryId` due now: its pending attempt if it has one, else a new
   * attempt. Throws AppError('not_found') or AppError('webhook_disabled').
   */
  retry(webhookId: number, deliveryId: number, now: Date): Promise<Delivery>;

  /**
   * Leases due attempts to one dispatcher, across every instance: each attempt to one holder, in
   * event-id order per endpoint, endpoints served least recently first.
   */
  claim(request: ClaimRequest): Promise<ClaimedAttempt[]>;
  /**
   * Records an attempt's outcome, schedules its retry and disables an endpoint that has failed for
   * too long, in one transaction. `recorded` is false when the lease was lost (nothing written);
   * `disabled` is true when this failure disabled the endpoint.
   */
  finish(result: AttemptResult): Promise<{ recorded: boolean; disabled: boolean }>;
  /** createdAt of the oldest event still waiting for a delivery to an enabled endpoint. */
  oldestPending(): Promise<string | undefined>;
  /** Deletes finished delivery log entries written before `before`; returns how many. */
  purge(before: Date): Promise<number>;
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
  /** A random secret created once per database, shared by every instance (signs cursors). */
  secret(name: string): Promise<string>;
  /** Resolves when the database answers a trivial query and migrations are applied. */
  ping(): Promise<void>;
  /** Connection gauges; optional so an engine without meaningful figures can omit it. */
  stats?(): StorageStats;
  close(): Promise<void>;
}
