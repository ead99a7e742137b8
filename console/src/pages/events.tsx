// Events: a live tail of the feed, newest first, as the console receives it.
import type { Event } from '@petstore/client';
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../session.ts';
import { Alert, Missing, PageHeading, formatTime, useSession } from '../ui.tsx';

const KEEP = 200;

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
              <span class="event-type">{e.type}</span> <code>{e.id}</code> <time dateTime={e.createdAt}>{formatTime(e.createdAt)}</time>
              <pre>{JSON.stringify(e.data)}</pre>
            </li>
          ))}
          {events.length === 0 && <li>No events yet: changes appear here as they happen.</li>}
        </ol>
      </div>
    </section>
  );
}
