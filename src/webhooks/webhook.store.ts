// The webhooks' storage: endpoints (WebhookRepository, WebhookTx) and their delivery log
// (DeliveryTx), implemented by storage/sql/sql.webhooks.ts.
import type { Event, EventType } from '../events/event.schemas.ts';
import type { Delivery, Webhook } from './webhook.schemas.ts';

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
