import type { Clock } from '../clock.ts';
import { invalid } from '../errors.ts';
import { periodic, type Job } from '../jobs.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { EventRepository } from './event.store.ts';
import type { WebhookRepository } from '../webhooks/webhook.store.ts';
import type { Scope } from '../keys/key.types.ts';
import { assertMayRead, readableTypes } from './event.access.ts';
import { EVENT_TYPES, eventSequence, type Event, type ListEventsQuery } from './event.schemas.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;

export class EventService {
  readonly #events: EventRepository;
  readonly #cursors: CursorCodec;

  constructor(events: EventRepository, cursors: CursorCodec) {
    this.#events = events;
    this.#cursors = cursors;
  }

  /**
   * A page of the events a key holding `scopes` may read (event.access.ts): a `type` it cannot
   * read is refused (403); without `type`, the types it cannot read are left out by the query
   * itself, so pages are full and cursors run over the same sequence as for any other key.
   */
  async list(q: ListEventsQuery, scopes: readonly Scope[]): Promise<Page<Event>> {
    if (q.cursor !== undefined && q.after !== undefined)
      throw invalid('query parameters "cursor" and "after" cannot be used together', {
        in: 'query',
        field: 'after',
        rule: 'exclusive',
        message: 'cannot be used with a cursor: start from an event, or continue a page',
      });
    if (q.type !== undefined) assertMayRead(scopes, q.type);
    const readable = readableTypes(scopes);
    const types = readable.length === EVENT_TYPES.length || q.type !== undefined ? undefined : readable;
    const fetch = (limit: number, afterId = q.after === undefined ? 0 : eventSequence({ id: q.after })) =>
      this.#events.list({ limit, afterId, type: q.type, petId: q.petId, types });
    return this.#cursors.fetchPage(`events;${q.type ?? ''}${q.petId === undefined ? '' : `;pet=${q.petId}`}`, q, fetch, eventSequence);
  }
}

/**
 * Retention: events, and the finished entries of the webhook delivery logs, older than
 * EVENT_RETENTION_DAYS are deleted at start-up and hourly after (`clock` decides "older").
 */
export function retentionJob(events: EventRepository, webhooks: WebhookRepository, clock: Clock, days: number, onError: (err: unknown) => void): Job {
  return periodic(
    PURGE_EVERY_MS,
    async () => {
      const before = new Date(clock.now().getTime() - days * DAY_MS);
      await events.purge(before);
      await webhooks.purge(before);
    },
    onError,
  );
}
