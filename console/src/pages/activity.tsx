// Activity: who did what (GET /v1/activity), newest first, filtered by person, animal, kind and day.
// "Who changed the price of Rex on Tuesday": Rex's page links here with the animal and "changed"
// chosen (one click); each entry names its person and says what changed, with its day and time.
import { useState } from 'preact/hooks';
import { useRoute } from '../route.ts';
import { Alert, Field, Missing, PageHeading, Pager, formatTime, useLoad, usePager, usePetsById, useSession } from '../ui.tsx';
import { changeWords } from './events.tsx';

/** The kinds a person filters by, in words; the API's `type` beside each. */
const KINDS: readonly [type: string, words: string][] = [
  ['pet.updated', 'Animal changed'],
  ['pet.created', 'Animal added'],
  ['pet.deleted', 'Animal withdrawn'],
  ['pet.health.recorded', 'Health record added'],
  ['order.placed', 'Order placed'],
  ['hold.placed', 'Hold placed'],
  ['customer.updated', 'Customer changed'],
  ['category.updated', 'Category renamed'],
  ['key.created', 'Key issued'],
  ['key.revoked', 'Key revoked'],
  ['staff.invited', 'Person invited'],
  ['session.started', 'Signed in'],
];
const KIND_WORDS = new Map(KINDS);

/** The filters in the address: `#/activity/pet:12/pet.updated`. */
function useFiltersInRoute(): { resource: string; type: string } {
  const route = useRoute();
  const [resource = '', type = ''] = route.kind === 'page' && route.page === 'activity' ? route.rest : [];
  return { resource: /^pet:[1-9][0-9]*$/.test(resource) ? resource : '', type: KIND_WORDS.has(type) ? type : '' };
}

/** [from, to) of a local calendar day (YYYY-MM-DD), as RFC 3339 times. */
function dayRange(day: string): { from?: string; to?: string } {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return {};
  const start = new Date(`${day}T00:00:00`);
  return { from: start.toISOString(), to: new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1).toISOString() };
}

export function ActivityPage() {
  const { session } = useSession();
  const { client } = session;
  const inRoute = useFiltersInRoute();
  const [person, setPerson] = useState('');
  const [pet, setPet] = useState(inRoute.resource.slice('pet:'.length));
  const [type, setType] = useState(inRoute.type);
  const [day, setDay] = useState('');
  const petId = /^[1-9][0-9]{0,15}$/.test(pet.trim()) ? Number(pet.trim()) : undefined;
  const petInvalid = pet.trim() !== '' && petId === undefined;
  const named = usePetsById(petId === undefined ? [] : [petId]).get(petId ?? 0);
  const canRead = session.can('activity:read');
  const people = useLoad(async () => (canRead && session.can('staff:read') ? (await client.staff.list({ limit: 100 })).data : []), [canRead]);
  const pager = usePager([person, petId, type, day]);
  const entries = useLoad(
    async () =>
      canRead && !petInvalid
        ? client.activity.list({
            limit: 20,
            cursor: pager.cursor,
            actor: person || undefined,
            resource: petId === undefined ? undefined : `pet:${petId}`,
            type: type || undefined,
            ...dayRange(day),
          })
        : undefined,
    [canRead, pager.cursor, person, petId, type, day, petInvalid],
  );
  if (!canRead)
    return (
      <section aria-labelledby="page-title">
        <PageHeading>Activity</PageHeading>
        <Missing scope="activity:read" what="see who changed what" />
      </section>
    );
  return (
    <section aria-labelledby="page-title">
      <PageHeading>Activity</PageHeading>
      <p>Who changed what, newest first.</p>
      <form class="filters" aria-label="Filter activity" onSubmit={(e) => e.preventDefault()}>
        <span class="filter">
          <label for="activity-person">Person</label>
          <select id="activity-person" value={person} onChange={(e) => setPerson(e.currentTarget.value)}>
            <option value="">anyone</option>
            {(people.data ?? []).map((p) => (
              <option key={p.id} value={`staff:${p.id}`}>
                {p.name}
              </option>
            ))}
          </select>
        </span>
        <Field
          id="activity-pet"
          label="Animal"
          hint={petId === undefined ? 'Its pet ID' : named ? named.name : `Pet ${petId}`}
          error={petInvalid ? 'must be a pet ID: a whole number from 1' : undefined}
        >
          {(a11y) => <input {...a11y} inputMode="numeric" value={pet} onInput={(e) => setPet(e.currentTarget.value)} size={8} />}
        </Field>
        <span class="filter">
          <label for="activity-kind">Kind</label>
          <select id="activity-kind" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">any</option>
            {KINDS.map(([t, words]) => (
              <option key={t} value={t}>
                {words}
              </option>
            ))}
          </select>
        </span>
        <span class="filter">
          <label for="activity-day">Day</label>
          <input id="activity-day" type="date" value={day} onInput={(e) => setDay(e.currentTarget.value)} />
        </span>
      </form>
      {entries.error && <Alert>{entries.error}</Alert>}
      <ol class="events" aria-label="Activity">
        {(entries.data?.data ?? []).map((e) => (
          <li key={e.id}>
            <strong>{e.actor.name}</strong> <span class="event-sentence">{KIND_WORDS.get(e.type) ?? e.type}</span> <code>{e.resource}</code>
            {e.changes && Object.keys(e.changes).length > 0 && <span>: {changeWords(e.changes as Record<string, unknown[]>)}</span>}{' '}
            <time dateTime={e.at}>{formatTime(e.at)}</time>
          </li>
        ))}
        {entries.data?.data.length === 0 && <li>Nothing recorded matches these filters.</li>}
      </ol>
      <Pager pager={pager} nextCursor={entries.data?.nextCursor} label="Activity" />
    </section>
  );
}
