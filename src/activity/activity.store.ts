// The activity log's storage (storage/sql/sql.activity.ts): written in each write's transaction
// by the outbox (events/event.outbox.ts), read newest first, purged after ACTIVITY_RETENTION_DAYS.
import type { Actor, ActivityEntry, Changes } from './activity.schemas.ts';

/** One write as the log records it. */
export interface NewActivity {
  readonly type: string;
  /** `<kind>:<id>` (`pet:42`). */
  readonly resource: string;
  readonly changes?: Changes;
}

export interface ActivityQuery {
  readonly limit: number;
  /** Entries with ids below this one (the keyset position); absent: from the newest. */
  readonly beforeId?: number;
  readonly actor?: { readonly type: 'staff' | 'key'; readonly id: number };
  readonly resource?: string;
  readonly type?: string;
  readonly from?: Date;
  readonly to?: Date;
}

export interface ActivityRepository {
  /** Newest first (descending id). */
  list(query: ActivityQuery): Promise<ActivityEntry[]>;
  /** Deletes the entries made before `before`; returns how many. */
  purge(before: Date): Promise<number>;
}

export interface ActivityTx {
  /** Records `entries`, made by `actor` at `at`, in the write's transaction. */
  record(actor: Actor, entries: readonly NewActivity[], at: Date): Promise<void>;
}
