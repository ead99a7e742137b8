// Events: a live tail of the feed, newest first, as the console receives it.
import type { Event, HealthRecord } from '@petstore/client';
import { KIND_LABELS } from './health.tsx';
import { useEffect, useState } from 'preact/hooks';
import { formatMoney } from '../money.ts';
import { describeError } from '../session.ts';
import { Alert, Missing, PageHeading, formatTime, useSession } from '../ui.tsx';

const KEEP = 200;

/** What an event's `data` may hold: the resource after the change, or `{id}` for a deletion. */
interface Data {
  readonly id: number;
  readonly name?: string;
  readonly status?: string;
  readonly petId?: number;
  readonly price?: { readonly amount: number; readonly currency: string } | null;
  /** A health record's (pet.health.*). */
  readonly kind?: HealthRecord['kind'];
  readonly date?: string;
  readonly voided?: { readonly reason: string };
}

/** A health record in words: "Vaccination Nobivac DHPPi of 2026-03-01". */
const health = (d: Data) => `${d.kind ? KIND_LABELS[d.kind] : 'Health record'} ${d.name ?? ''} of ${d.date}`.replace('  ', ' ');

/** An event as a sentence a person reads ("Order 4 placed for pet 3 — €600.00"); the raw JSON stays one click away. */
export function sentence(e: Event): string {
  const d = e.data as Data;
  const price = d.price ? ` — ${formatMoney(d.price.amount, d.price.currency)}` : '';
  const pet = d.name === undefined ? `Pet ${d.id}` : `${d.name} (pet ${d.id})`;
  switch (e.type) {
    case 'pet.created':
      return `${pet} added, ${d.status}${price}`;
    case 'pet.updated':
      return `${pet} changed: now ${d.status}${price}`;
    case 'pet.deleted':
      return `Pet ${d.id} withdrawn`;
    case 'order.placed':
      return `Order ${d.id} placed for pet ${d.petId}${price}`;
    case 'pet.health.recorded':
      return `${health(d)} recorded for pet ${d.petId}`;
    case 'pet.health.voided':
      return `${health(d)} voided for pet ${d.petId}${d.voided ? `: ${d.voided.reason}` : ''}`;
    case 'category.created':
      return `Category ${d.name} added`;
    case 'category.updated':
      return `Category ${d.id} renamed to ${d.name}`;
    case 'category.deleted':
      return `Category ${d.id} deleted`;
    default:
      // order.approved, order.delivered, order.cancelled
      return `Order ${d.id} ${e.type.slice('order.'.length)} (pet ${d.petId})`;
  }
}

export function EventsPage() {
  const { session, live } = useSession();
  const [events, setEvents] = useState<readonly Event[]>([]);
  const [failure, setFailure] = useState<string>();
  useEffect(() => {
    if (!session.can('events:read')) return;
    let stopped = false;
    const add = (batch: readonly Event[]) =>
      batch.length > 0 &&
      setEvents((shown) => {
        const ids = new Set(shown.map((e) => e.id));
        return [...batch.filter((e) => !ids.has(e.id)).reverse(), ...shown].slice(0, KEEP);
      });
    const unsubscribe = live.subscribe(add);
    // The last few events before following began, so the page does not open empty.
    void live.ready().then(async () => {
      const from = live.position - 20;
      try {
        const page = await session.client.events.list(from > 0 ? { after: `evt_${from}`, limit: 20 } : { limit: 20 });
        if (!stopped) add(page.data);
      } catch (err) {
        if (!stopped) setFailure(describeError(err));
      }
    });
    return () => {
      stopped = true;
      unsubscribe();
    };
  }, [live, session]);

  if (!session.can('events:read'))
    return (
      <section aria-labelledby="page-title">
        <PageHeading>Events</PageHeading>
        <Missing scope="events:read" what="read the event feed" />
      </section>
    );
  return (
    <section aria-labelledby="page-title">
      <PageHeading>Events</PageHeading>
      <p>Every change to pets, orders and categories, newest first, as it happens (the last {KEEP} are kept on this page).</p>
      {failure && <Alert>{failure}</Alert>}
      <div role="log" aria-label="Event tail">
        <ol class="events">
          {events.map((e) => (
            <li key={e.id}>
              <span class="event-sentence">{sentence(e)}</span> <time dateTime={e.createdAt}>{formatTime(e.createdAt)}</time>
              <details>
                <summary>
                  <span class="event-type">{e.type}</span> <code>{e.id}</code> as JSON
                </summary>
                <pre>{JSON.stringify(e.data, null, 2)}</pre>
              </details>
            </li>
          ))}
          {events.length === 0 && <li>No events yet: changes appear here as they happen.</li>}
        </ol>
      </div>
    </section>
  );
}
