// The activity log (docs/api.md, "Activity"): who made each write, read newest first, as pages or
// as CSV, with the changes of each entry shown under the events' read rule (events/event.access.ts).
import type { Clock } from '../clock.ts';
import { csvLine } from '../csv.ts';
import { mayReadChanges } from '../events/event.access.ts';
import { periodic, type Job } from '../jobs.ts';
import type { Scope } from '../keys/key.types.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { ActivityCsvQuery, ActivityEntry, ListActivityQuery } from './activity.schemas.ts';
import type { ActivityQuery, ActivityRepository } from './activity.store.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;
/** Entries read from the database per page of the CSV: the memory an export takes, whatever its length. */
export const ACTIVITY_CSV_PAGE = 500;

export const ACTIVITY_CSV_HEADER = ['id', 'at', 'actor_type', 'actor_id', 'actor_name', 'type', 'resource', 'changes'] as const;

/** The filters of a query as the repository reads them. */
function filters(q: ActivityCsvQuery): Omit<ActivityQuery, 'limit' | 'beforeId'> {
  const [type, id] = q.actor === undefined ? [] : q.actor.split(':');
  return {
    actor: q.actor === undefined ? undefined : { type: type as 'staff' | 'key', id: Number(id) },
    resource: q.resource,
    type: q.type,
    from: q.from === undefined ? undefined : new Date(q.from),
    to: q.to === undefined ? undefined : new Date(q.to),
  };
}

/** An entry as a reader holding `scopes` sees it: a customer's changes only with `customers:read`. */
export function readableEntry(e: ActivityEntry, scopes: readonly Scope[]): ActivityEntry {
  if (e.changes === undefined || mayReadChanges(scopes, e.type)) return e;
  const { changes: _hidden, ...rest } = e;
  return rest;
}

export class ActivityService {
  readonly #repo: ActivityRepository;
  readonly #cursors: CursorCodec;

  constructor(repo: ActivityRepository, cursors: CursorCodec) {
    this.#repo = repo;
    this.#cursors = cursors;
  }

  /** A page of the log, newest first; the cursor is bound to the filters. */
  async list(q: ListActivityQuery, scopes: readonly Scope[]): Promise<Page<ActivityEntry>> {
    const f = filters(q);
    const scope = `activity;${q.actor ?? ''};${q.resource ?? ''};${q.type ?? ''};${q.from ?? ''};${q.to ?? ''}`;
    const page = await this.#cursors.fetchPage(scope, q, (limit, beforeId) => this.#repo.list({ ...f, limit, beforeId }));
    return { ...page, items: page.items.map((e) => readableEntry(e, scopes)) };
  }

  /** The log as CSV, newest first: its header, then ACTIVITY_CSV_PAGE entries at a time. */
  async *csv(q: ActivityCsvQuery, scopes: readonly Scope[]): AsyncGenerator<string> {
    yield csvLine(ACTIVITY_CSV_HEADER);
    const f = filters(q);
    for (let beforeId: number | undefined; ; ) {
      const page = await this.#repo.list({ ...f, limit: ACTIVITY_CSV_PAGE, beforeId });
      if (page.length > 0) yield page.map((e) => activityRow(readableEntry(e, scopes))).join('');
      if (page.length < ACTIVITY_CSV_PAGE) return;
      beforeId = page[page.length - 1].id;
    }
  }
}

/** The CSV row of one entry; its changes as their JSON. */
export function activityRow(e: ActivityEntry): string {
  const changes = e.changes === undefined ? undefined : JSON.stringify(e.changes);
  return csvLine([e.id, e.at, e.actor.type, e.actor.id ?? undefined, e.actor.name, e.type, e.resource, changes]);
}

/** The days the log keeps an entry: ACTIVITY_RETENTION_DAYS, raised to EVENT_RETENTION_DAYS, so that no event outlives the "who" of its change. */
export function activityRetention(config: { readonly activityRetentionDays: number; readonly eventRetentionDays: number }): number {
  return Math.max(config.activityRetentionDays, config.eventRetentionDays);
}

/**
 * Retention: entries older than `days` (activityRetention) are deleted at start-up and hourly after,
 * by every instance (a DELETE by date: running it twice, or on two instances at once, deletes the same).
 */
export function activityRetentionJob(repo: ActivityRepository, clock: Clock, days: number, onError: (err: unknown) => void): Job {
  return periodic(PURGE_EVERY_MS, () => repo.purge(new Date(clock.now().getTime() - days * DAY_MS)), onError);
}
