// The storage as the app sees it: a Storage of every domain's reads, and the Transaction a workflow
// runs over. Each domain declares its own repositories beside it (pets/pet.store.ts,
// store/order.store.ts, …); the engines implement them (storage/sql/, storage/sqlite/,
// storage/postgres/). Repositories return domain objects, never rows, and decide nothing: a rule
// (what may change, what a change records) lives in its domain folder and runs as a workflow over
// a Transaction (docs/architecture.md).
//
// One way to say "not found": a read or a transaction method returns undefined (false for a
// yes/no question); a workflow that needs the row throws AppError('not_found').
import type { ActivityRepository, ActivityTx } from '../activity/activity.store.ts';
import type { CategoryRepository, CategoryTx } from '../categories/category.store.ts';
import type { CustomerRepository, CustomerTx } from '../customers/customer.store.ts';
import type { EventRepository, EventTx } from '../events/event.store.ts';
import type { HealthRepository, HealthTx } from '../health/health.store.ts';
import type { HoldRepository, HoldTx } from '../holds/hold.store.ts';
import type { ImportRepository, ImportTx } from '../imports/import.store.ts';
import type { IdempotencyRepository, IdempotencyTx } from '../events/idempotency.store.ts';
import type { ApiKeyRepository, ApiKeyTx } from '../keys/key.store.ts';
import type { PetRepository, PetTx } from '../pets/pet.store.ts';
import type { PhotoRepository, PhotoTx } from '../photos/photo.store.ts';
import type { StaffRepository, StaffTx } from '../staff/staff.store.ts';
import type { OrderRepository, OrderTx } from '../store/order.store.ts';
import type { DealerBookRepository } from '../records/dealer-book.store.ts';
import type { DeliveryTx, WebhookRepository, WebhookTx } from '../webhooks/webhook.store.ts';

/**
 * The repositories of one transaction (Storage.transaction). Each method is one statement or two;
 * "lock" means the row stays as read until the transaction ends (PostgreSQL: the row lock named;
 * SQLite: the database write lock every transaction holds).
 */
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
  readonly health: HealthTx;
  readonly staff: StaffTx;
  readonly customers: CustomerTx;
  readonly holds: HoldTx;
  readonly imports: ImportTx;
  readonly activity: ActivityTx;
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
  readonly health: HealthRepository;
  readonly staff: StaffRepository;
  readonly customers: CustomerRepository;
  readonly holds: HoldRepository;
  readonly dealerBook: DealerBookRepository;
  readonly imports: ImportRepository;
  readonly activity: ActivityRepository;
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
  /** A value the service keeps about the database itself (the `meta` table), if one was saved under `name`. */
  setting(name: string): Promise<string | undefined>;
  /** Saves (or replaces) the value `setting(name)` reads. */
  saveSetting(name: string, value: string): Promise<void>;
  /** Resolves when the database answers a trivial query and migrations are applied. */
  ping(): Promise<void>;
  /** Connection gauges; optional so an engine without meaningful figures can omit it. */
  stats?(): StorageStats;
  close(): Promise<void>;
}
