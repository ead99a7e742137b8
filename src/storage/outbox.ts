import type { EventType } from '../events/event.schemas.ts';

/** An event a write records: its type and the resource after the change (or `{id}` for a deletion). */
export interface NewEvent {
  readonly type: EventType;
  readonly data: object;
}

/** The events of a write, as the engines store them: type and JSON text, in order. */
export function eventRows(events: readonly NewEvent[]): { types: string[]; data: string[] } {
  return { types: events.map((e) => e.type), data: events.map((e) => JSON.stringify(e.data)) };
}

export const CLAIM_LOST = 'the Idempotency-Key claim of this request is gone (taken over after it was abandoned); nothing was written';
