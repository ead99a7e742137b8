// The outbox's storage: what every write carries (WriteContext), the events it records in its
// transaction (EventTx) and the feed that reads them (EventRepository). Engines implement these
// (storage/sql/sql.events.ts); storage/storage.ts gathers every domain's repositories.
import type { Actor, Changes } from '../activity/activity.schemas.ts';
import type { Condition } from '../preconditions.ts';
import type { EventType, Event } from './event.schemas.ts';
import type { IdempotentResponse } from './idempotency.store.ts';

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

/** An event a write records: its type and the resource after the change (or `{id}` for a deletion). */
export interface NewEvent {
  readonly type: EventType;
  readonly data: object;
  /** The animal it concerns (the feed's `petId` filter): set by the outbox from type and data (event.schemas.ts, eventPetId). */
  readonly petId?: number | undefined;
  /** For an update: what changed (activity/activity.changes.ts, changesOf). */
  readonly changes?: Changes;
  /** Who made it: set by the outbox from the request (activity/activity.context.ts). */
  readonly actor?: Actor;
}

/** Keyset page request over the event feed: ascending ids after `afterId`. */
export interface EventQuery {
  readonly limit: number;
  readonly afterId: number;
  readonly type?: EventType;
  /** Only the events of this animal (event.schemas.ts, eventPetId). */
  readonly petId?: number;
  /** Only events of these types (the ones the reading key may read: events/event.access.ts); absent: every type. */
  readonly types?: readonly EventType[];
}

/** The outbox, read side: events are written by workflows, inside their transactions (EventTx). */
export interface EventRepository {
  list(query: EventQuery): Promise<Event[]>;
  /** Deletes events created before `before`; returns how many. */
  purge(before: Date): Promise<number>;
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
