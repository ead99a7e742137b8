// Events: a live tail of the feed, newest first, as the console receives it.
import { EVENT_TYPES, type Event, type EventType, type HealthRecord } from '@petstore/client';
import { KIND_LABELS } from './health.tsx';
import { useEffect, useState } from 'preact/hooks';
import { formatMoney } from '../money.ts';
import { describeError } from '../session.ts';
import { readScopeOf } from '../scopes.ts';
import { petHref } from '../route.ts';
import { Alert, Missing, PageHeading, formatTime, usePetsById, useSession } from '../ui.tsx';
import { type Choice, Pick } from '../pick.tsx';

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

type Money = { readonly amount: number; readonly currency: string } | null;

/** A member's value in words: a price as money, nothing as "none", a list joined. */
function valueWords(member: string, value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (member === 'price') return formatMoney((value as NonNullable<Money>).amount, (value as NonNullable<Money>).currency);
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(', ');
  return typeof value === 'object' ? 'changed' : String(value);
}

/** What an update changed, in words: "price €19.99 → €21.50, status available → pending" (the event's `changes`). */
export function changeWords(changes: Readonly<Record<string, readonly unknown[]>>): string {
  return Object.entries(changes)
    .map(([member, [before, after]]) => {
      if (member === 'photoUrls') return 'photos changed';
      if (typeof before === 'object' && member !== 'price' && !Array.isArray(before) && before !== null) return `${member} changed`;
      return `${member} ${valueWords(member, before)} → ${valueWords(member, after)}`;
    })
    .join(', ');
}

/** Who made an event's change, when the service recorded it. */
export const actorName = (e: Event): string | undefined => (e as { actor?: { name: string } }).actor?.name;

/** The animal an event concerns, by the service's rule (eventPetId, src/events/event.schemas.ts): undefined for a category's. */
export function eventPetId(e: Event): number | undefined {
  const data = e.data as { id?: number; petId?: number };
  // A category's or a customer's event concerns no animal (its data.id is not a pet's).
  if (e.type.startsWith('category.') || e.type.startsWith('customer.')) return undefined;
  return e.type.startsWith('pet.health.') || e.type.startsWith('order.') || e.type.startsWith('hold.') ? data.petId : data.id;
}

/**
 * An event as a sentence a person reads ("Order 4 placed for Biscuit (pet 3) — €600.00"); the raw
 * JSON stays one click away. `names` holds the animals whose names are known (a pet event carries
 * its own; an order or a health record names the animal by id only).
 */
export function sentence(e: Event, names: ReadonlyMap<number, { readonly name: string }> = new Map()): string {
  const d = e.data as Data;
  const price = d.price ? ` — ${formatMoney(d.price.amount, d.price.currency)}` : '';
  const animal = (id: number | undefined, name = names.get(id ?? 0)?.name) => (name === undefined ? `pet ${id}` : `${name} (pet ${id})`);
  switch (e.type) {
    case 'pet.created':
      return `${animal(d.id, d.name)} added, ${d.status}${price}`.replace(/^pet/, 'Pet');
    case 'pet.updated': {
      const changes = (e as { changes?: Record<string, unknown[]> }).changes;
      if (changes !== undefined && Object.keys(changes).length > 0) return `${animal(d.id, d.name)}: ${changeWords(changes)}`.replace(/^pet/, 'Pet');
      return `${animal(d.id, d.name)} changed: now ${d.status}${price}`.replace(/^pet/, 'Pet');
    }
    case 'pet.deleted':
      return `${animal(d.id)} withdrawn`.replace(/^pet/, 'Pet');
    case 'order.placed':
      return `Order ${d.id} placed for ${animal(d.petId)}${price}`;
    case 'pet.health.recorded':
      return `${health(d)} recorded for ${animal(d.petId)}`;
    case 'pet.health.voided':
      return `${health(d)} voided for ${animal(d.petId)}${d.voided ? `: ${d.voided.reason}` : ''}`;
    case 'category.created':
      return `Category ${d.name} added`;
    case 'category.updated':
      return `Category ${d.id} renamed to ${d.name}`;
    case 'category.deleted':
      return `Category ${d.id} deleted`;
    case 'hold.placed': {
      const hold = e.data as { until?: string; deposit?: { amount: number; currency: string } };
      const deposit = hold.deposit ? ` — deposit ${formatMoney(hold.deposit.amount, hold.deposit.currency)}` : '';
      return `Hold ${d.id}: ${animal(d.petId)} held until ${formatTime(hold.until)}${deposit}`;
    }
    case 'hold.cancelled':
    case 'hold.converted':
    case 'hold.expired':
      return `Hold ${d.id} of ${animal(d.petId)} ${e.type.slice('hold.'.length)}`;
    case 'customer.created':
    case 'customer.updated':
    case 'customer.deleted':
      return `Customer ${d.id} ${{ 'customer.created': 'added', 'customer.updated': 'changed', 'customer.deleted': 'withdrawn' }[e.type]}`;
    default:
      // order.approved, order.delivered, order.cancelled
      return `Order ${d.id} ${e.type.slice('order.'.length)} (${animal(d.petId)})`;
  }
}

/** Whether an event of the feed concerns the animal. */
export function concernsPet(e: Event, petId: number): boolean {
  return eventPetId(e) === petId;
}

/** What the page shows: every event, or those of one type, of one animal, or both. */
interface Filter {
  readonly type: EventType | '';
  /** The animal chosen by its name; undefined for every animal. */
  readonly pet: Choice | undefined;
}

/** The events read before following began, when the page opens or a filter changes. */
const BACKLOG = 1000;

export function EventsPage() {
  const { session, live } = useSession();
  const [events, setEvents] = useState<readonly Event[]>([]);
  const [failure, setFailure] = useState<string>();
  const [filter, setFilter] = useState<Filter>({ type: '', pet: undefined });
  const petId = filter.pet?.id;
  const readable = EVENT_TYPES.filter((t) => session.can(readScopeOf(t)));
  // The names of the animals the shown events concern (the first 100), for their sentences.
  const names = usePetsById(events.map(eventPetId).filter((id) => id !== undefined));
  useEffect(() => {
    if (!session.can('events:read')) return;
    let stopped = false;
    setEvents([]);
    setFailure(undefined);
    const wanted = (e: Event) => (filter.type === '' || e.type === filter.type) && (petId === undefined || concernsPet(e, petId));
    const add = (batch: readonly Event[]) => {
      const shown = batch.filter(wanted);
      if (shown.length > 0)
        setEvents((old) => {
          const ids = new Set(old.map((e) => e.id));
          return [...shown.filter((e) => !ids.has(e.id)).reverse(), ...old].slice(0, KEEP);
        });
    };
    const unsubscribe = live.subscribe(add);
    // What came before following began, so the page does not open empty: an animal's whole history
    // (its own index, docs/events.md), else the last events of the feed — of a type, among the last BACKLOG.
    void live.ready().then(async () => {
      const type = filter.type || undefined;
      try {
        let before: Event[];
        if (petId !== undefined) before = await session.client.events.iterate({ petId, type, limit: 100 }).toArray({ limit: BACKLOG });
        else {
          const from = live.position - (type ? BACKLOG : 20);
          const start = from > 0 ? { after: `evt_${from}` } : {};
          before = await session.client.events.iterate({ ...start, type, limit: type ? 100 : 20 }).toArray({ limit: type ? BACKLOG : 20 });
        }
        if (!stopped) add(before);
      } catch (err) {
        if (!stopped) setFailure(describeError(err));
      }
    });
    return () => {
      stopped = true;
      unsubscribe();
    };
  }, [live, session, filter.type, petId]);

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
      <form class="filters" aria-label="Filter events" onSubmit={(e) => e.preventDefault()}>
        <span class="filter">
          <label for="events-type">Type</label>
          <select id="events-type" value={filter.type} onChange={(e) => setFilter({ ...filter, type: e.currentTarget.value as EventType | '' })}>
            <option value="">any</option>
            {readable.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </span>
        <Pick
          id="events-pet"
          label="Animal"
          hint={filter.pet ? `${filter.pet.label}: its history` : 'Its name, or a part of it'}
          search={async (q) => (await session.client.pets.search(q, { limit: 8 })).data.map((p) => ({ id: p.id, label: p.name, detail: `pet ${p.id}` }))}
          chosen={filter.pet}
          onChoose={(pet) => setFilter({ ...filter, pet })}
        />
      </form>
      {failure && <Alert>{failure}</Alert>}
      <div role="log" aria-label="Event tail">
        <ol class="events">
          {events.map((e) => (
            <li key={e.id}>
              <EventSentence event={e} names={names} /> <time dateTime={e.createdAt}>{formatTime(e.createdAt)}</time>
              {actorName(e) && <span class="event-actor"> by {actorName(e)}</span>}
              <details>
                <summary>
                  <span class="event-type">{e.type}</span> <code>{e.id}</code> as JSON
                </summary>
                <pre>{JSON.stringify(e.data, null, 2)}</pre>
              </details>
            </li>
          ))}
          {events.length === 0 && (
            <li>
              {filter.type || filter.pet
                ? 'No events match these filters yet: they appear here as they happen.'
                : 'No events yet: changes appear here as they happen.'}
            </li>
          )}
        </ol>
      </div>
    </section>
  );
}

/** An event's sentence, linking to the page of the animal it concerns (its links: issue 35 §5). */
function EventSentence({ event, names }: { event: Event; names: ReadonlyMap<number, { readonly name: string }> }) {
  const petId = eventPetId(event);
  const text = sentence(event, names);
  return <span class="event-sentence">{petId === undefined || event.type === 'pet.deleted' ? text : <a href={petHref(petId)}>{text}</a>}</span>;
}
