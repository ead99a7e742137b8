// An animal's own page (issue 36 §3), `/console/pets/{id}`: its photos, large; its record, with what
// the store still has to fill in marked; its health log (HealthLog, as on the Health page) and the
// next care due; its orders; its history — the events of this animal (GET /v1/events?petId=),
// newest first. Each part asks for what its scope reads, and says so when the key cannot.
import type { Category, Pet } from '@petstore/client';
import { useEffect, useState } from 'preact/hooks';
import { formatMoney } from '../money.ts';
import { nextCare } from '../care.ts';
import { pageHref } from '../route.ts';
import { Alert, Missing, PageHeading, Pager, formatTime, useCustomersById, useLive, useLoad, useOutcome, usePager, useSession } from '../ui.tsx';
import { actorName, concernsPet, sentence } from './events.tsx';
import { HealthLog, KIND_LABELS } from './health.tsx';
import { PetForm, readPet } from './pets.tsx';

/** A member of the record, as `recordMissing` names it. */
type RecordField = NonNullable<Pet['recordMissing']>[number];

/** The record's fields in the order and with the labels of the API's descriptions (issue 36 §3). */
const RECORD_FIELDS: readonly { member: RecordField; label: string; show: (p: Pet) => string | undefined }[] = [
  { member: 'breed', label: 'Breed', show: (p) => breedText(p.breed) },
  { member: 'sex', label: 'Sex', show: (p) => p.sex },
  { member: 'neutered', label: 'Neutered', show: (p) => (p.neutered === undefined ? undefined : p.neutered ? 'Yes' : 'No') },
  { member: 'colour', label: 'Colour', show: (p) => p.colour },
  {
    member: 'birthDate',
    label: 'Birth date',
    show: (p) => (p.birthDate === undefined ? undefined : `${p.birthDate}${p.birthDateEstimated ? ' (estimated)' : ''}`),
  },
  { member: 'microchip', label: 'Microchip', show: (p) => p.microchip },
  { member: 'acquiredAt', label: 'Acquired', show: (p) => p.acquiredAt },
  {
    member: 'source',
    label: 'Source',
    show: (p) =>
      p.source === undefined
        ? undefined
        : [SOURCE_WORDS[p.source.kind], p.source.name, p.source.address, p.source.licence ? `licence ${p.source.licence}` : undefined]
            .filter(Boolean)
            .join(', '),
  },
];

/** Where an animal came from, in words. */
const SOURCE_WORDS: Readonly<Record<NonNullable<Pet['source']>['kind'], string>> = {
  breeder: 'Breeder',
  supplier: 'Supplier',
  private: 'Private person',
  surrender: 'Surrendered',
  'born-in-store': 'Born in the store',
  transfer: 'Transfer',
};

/** A breed in words: "Labrador Retriever", "Poodle × Cocker Spaniel (mixed)". */
function breedText(breed: Pet['breed']): string | undefined {
  if (breed === undefined) return undefined;
  const names = [breed.primary, breed.secondary].filter(Boolean).join(' × ');
  return breed.mixed ? `${names} (mixed)` : names;
}

export function PetPage({ petId }: { petId: number }) {
  const { session } = useSession();
  const { client } = session;
  const pet = useLoad(() => readPet(client, petId), [petId]);
  const categories = useLoad(() => client.categories.list(), []);
  useLive((e) => e.type.startsWith('pet.') && !e.type.startsWith('pet.health.') && concernsPet(e, petId), pet.reload);
  const [editing, setEditing] = useState(false);
  const outcome = useOutcome();
  const name = pet.data?.data.name;
  useEffect(() => {
    document.title = `${name ?? `Pet ${petId}`} · Pet Store console`;
  }, [name, petId]);

  if (pet.error && !pet.data)
    return (
      <section aria-labelledby="page-title">
        <PageHeading>Pet {petId}</PageHeading>
        <Alert>{pet.error}</Alert>
        <p>
          <a href={pageHref('pets')}>All pets</a>
        </p>
      </section>
    );
  if (!pet.data) return <p class="loading">Loading pet {petId}…</p>;
  const p = pet.data.data;
  const category = categories.data?.find((c: Category) => c.id === p.categoryId)?.name;
  return (
    <section aria-labelledby="page-title" class="pet-page">
      <p class="crumbs">
        <a href={pageHref('pets')}>All pets</a>
      </p>
      <PageHeading>{p.name}</PageHeading>
      <p class="pet-summary">
        <span class={`badge ${p.status}`}>{p.status}</span> Pet {p.id}
        {category ? ` · ${category}` : ''}
        {p.price ? ` · ${formatMoney(p.price.amount, p.price.currency)}` : ''}
        {p.tags.length > 0 ? ` · ${p.tags.join(', ')}` : ''}
      </p>
      {p.description && <p>{p.description}</p>}
      {session.can('pets:write') && !editing && (
        <button
          type="button"
          onClick={() => {
            outcome.start();
            setEditing(true);
          }}
        >
          Edit
        </button>
      )}
      {editing && (
        <PetForm
          id={petId}
          categories={categories.data ?? []}
          onDone={(saved) => {
            setEditing(false);
            if (saved) {
              outcome.succeeded(`Saved ${saved.name}.`);
              pet.reload();
            }
          }}
        />
      )}
      {outcome.view}
      <HoldAndBuyer petId={petId} />
      <Photos petId={petId} name={p.name} />
      <Record pet={p} />
      <Health petId={petId} name={p.name} />
      <Orders petId={petId} />
      <History petId={petId} name={p.name} />
    </section>
  );
}

/** The photos, shown large (the display images, at most 1,600 px, scaled to the page's width). */
function Photos({ petId, name }: { petId: number; name: string }) {
  const { session } = useSession();
  const photos = useLoad(() => session.client.pets.listPhotos(petId), [petId]);
  useLive((e) => e.type === 'pet.updated' && concernsPet(e, petId), photos.reload);
  const list = photos.data ?? [];
  return (
    <section aria-labelledby="photos-title">
      <h2 id="photos-title">Photos</h2>
      {photos.error && <Alert>{photos.error}</Alert>}
      {list.length === 0 && !photos.loading && <p class="muted">No photos yet{session.can('pets:write') ? ': add them with Edit' : ''}.</p>}
      <ul class="photo-large">
        {list.map((photo, i) => (
          <li key={photo.id}>
            <a href={photo.url} target="_blank" rel="noopener">
              <img src={photo.url} width={photo.width} height={photo.height} alt={`${name} (${i + 1} of ${list.length})`} loading="lazy" />
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The record: each field, or "not recorded"; the ones the store requires and lacks (recordMissing) marked as missing. */
function Record({ pet }: { pet: Pet }) {
  const missing = new Set<string>(pet.recordMissing ?? []);
  const knowsRequired = pet.recordMissing !== undefined;
  return (
    <section aria-labelledby="record-title">
      <h2 id="record-title">Record</h2>
      {knowsRequired &&
        (missing.size === 0 ? (
          <p class="record-complete">The record is complete.</p>
        ) : (
          <p class="record-incomplete">
            The record is incomplete:{' '}
            {RECORD_FIELDS.filter((f) => missing.has(f.member))
              .map((f) => f.label)
              .join(', ') || [...missing].join(', ')}{' '}
            {missing.size === 1 ? 'is' : 'are'} missing.
          </p>
        ))}
      <dl class="record">
        {RECORD_FIELDS.map((f) => {
          const value = f.show(pet);
          return (
            <div key={f.member} class={missing.has(f.member) ? 'missing-field' : undefined}>
              <dt>{f.label}</dt>
              <dd>
                {value ?? <span class="muted">not recorded</span>}
                {missing.has(f.member) && (
                  <>
                    {' '}
                    <span class="badge cancelled">missing</span>
                  </>
                )}
              </dd>
            </div>
          );
        })}
      </dl>
    </section>
  );
}

function Health({ petId, name }: { petId: number; name: string }) {
  const { session } = useSession();
  const canRead = session.can('health:read');
  const recent = useLoad(async () => (canRead ? (await session.client.health.list(petId, { limit: 100 })).data : []), [petId, canRead]);
  useLive((e) => e.type.startsWith('pet.health.') && concernsPet(e, petId), recent.reload);
  const next = recent.data && nextCare(recent.data);
  const today = new Date().toISOString().slice(0, 10);
  return (
    <section aria-labelledby="health-title">
      <h2 id="health-title">Health</h2>
      {!canRead ? (
        <Missing scope="health:read" what="read health logs" />
      ) : (
        <>
          <p class="next-care">
            {next ? (
              <>
                Next care due: <strong>{next.nextDue}</strong> — {KIND_LABELS[next.kind]}: {next.name}
                {next.nextDue! < today && (
                  <>
                    {' '}
                    <span class="badge cancelled">overdue</span>
                  </>
                )}
              </>
            ) : recent.data ? (
              'No care is due.'
            ) : null}
          </p>
          <HealthLog petId={petId} name={name} />
        </>
      )}
    </section>
  );
}

/**
 * Who the animal is kept for and who bought it (issue 37 §4): its live hold (`GET /v1/holds?petId=&state=live`:
 * the customer, until when, the deposit) and the customer of its newest order that is not cancelled.
 * Holds and orders are read with orders:read; the customers' names with customers:read only.
 */
function HoldAndBuyer({ petId }: { petId: number }) {
  const { session } = useSession();
  const { client } = session;
  const canRead = session.can('orders:read');
  const canName = session.can('customers:read');
  const sale = useLoad(async () => {
    if (!canRead) return undefined;
    const [holds, orders] = await Promise.all([client.holds.list({ petId, state: 'live', limit: 1 }), client.orders.list({ petId, limit: 100 })]);
    return { hold: holds.data[0], order: orders.data.filter((o) => o.status !== 'cancelled').at(-1) };
  }, [petId, canRead]);
  useLive((e) => (e.type.startsWith('hold.') || e.type.startsWith('order.')) && concernsPet(e, petId), sale.reload);
  const customers = useCustomersById([sale.data?.hold?.customerId, sale.data?.order?.customerId]);
  const who = (id: number | undefined) => (id === undefined ? 'no customer recorded' : (customers.get(id)?.name ?? `customer ${id}`));
  const { hold, order } = sale.data ?? {};
  return (
    <section aria-labelledby="sale-title">
      <h2 id="sale-title">Hold and buyer</h2>
      {!canRead ? (
        <Missing scope="orders:read" what="see its hold and its buyer" />
      ) : (
        <>
          {sale.error && <Alert>{sale.error}</Alert>}
          <dl class="record">
            <div>
              <dt>Hold</dt>
              <dd>
                {hold
                  ? `For ${who(hold.customerId)} until ${formatTime(hold.until)}, ${
                      hold.deposit ? `deposit ${formatMoney(hold.deposit.amount, hold.deposit.currency)}` : 'no deposit'
                    }`
                  : 'Not held.'}
              </dd>
            </div>
            <div>
              <dt>Buyer</dt>
              <dd>{order ? `${who(order.customerId)} (order ${order.id}, ${order.status})` : 'Not sold.'}</dd>
            </div>
          </dl>
          {!canName && <Missing scope="customers:read" what="see the customers' names" />}
        </>
      )}
    </section>
  );
}

function Orders({ petId }: { petId: number }) {
  const { session } = useSession();
  const canRead = session.can('orders:read');
  const pager = usePager([petId]);
  const orders = useLoad(
    async () => (canRead ? await session.client.orders.list({ petId, limit: 20, cursor: pager.cursor }) : undefined),
    [petId, pager.cursor, canRead],
  );
  useLive((e) => e.type.startsWith('order.') && concernsPet(e, petId), orders.reload);
  return (
    <section aria-labelledby="orders-title">
      <h2 id="orders-title">Orders</h2>
      {!canRead ? (
        <Missing scope="orders:read" what="read orders" />
      ) : (
        <>
          {orders.error && <Alert>{orders.error}</Alert>}
          <table>
            <caption>Orders for this animal</caption>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Status</th>
                <th scope="col">Placed</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {orders.data?.data.map((o) => (
                <tr key={o.id}>
                  <td data-label="Order">{o.id}</td>
                  <td data-label="Status">
                    <span class={`badge ${o.status}`}>{o.status}</span>
                  </td>
                  <td data-label="Placed">{formatTime(o.createdAt)}</td>
                  <td data-label="Updated">{formatTime(o.updatedAt)}</td>
                </tr>
              ))}
              {orders.data?.data.length === 0 && (
                <tr>
                  <td colSpan={4}>No orders for this animal.</td>
                </tr>
              )}
            </tbody>
          </table>
          <Pager pager={pager} nextCursor={orders.data?.nextCursor} label="Orders" />
        </>
      )}
    </section>
  );
}

/** At most this many events of one animal are read for its history (the feed keeps EVENT_RETENTION_DAYS). */
const HISTORY_MAX = 1000;

/**
 * The animal's history: its events (GET /v1/events?petId=, the ones this key may read), newest first.
 * The feed is ascending, so the pages are read to the end (an index walk per page) and turned round.
 */
function History({ petId, name }: { petId: number; name: string }) {
  const { session } = useSession();
  const names = new Map([[petId, { name }]]);
  const canRead = session.can('events:read');
  const events = useLoad(
    async () => (canRead ? (await session.client.events.iterate({ petId, limit: 100 }).toArray({ limit: HISTORY_MAX })).reverse() : []),
    [petId, canRead],
  );
  useLive((e) => concernsPet(e, petId), events.reload);
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {session.can('activity:read') && (
        <p>
          <a href={pageHref(`activity/pet:${petId}/pet.updated`)}>Who changed {name}</a>
        </p>
      )}
      {!canRead ? (
        <Missing scope="events:read" what="read the event feed" />
      ) : (
        <>
          {events.error && <Alert>{events.error}</Alert>}
          <ol class="events" aria-labelledby="history-title">
            {events.data?.map((e) => (
              <li key={e.id}>
                <span class="event-sentence">{sentence(e, names)}</span> <time dateTime={e.createdAt}>{formatTime(e.createdAt)}</time>
                {actorName(e) && <span class="event-actor"> by {actorName(e)}</span>}
              </li>
            ))}
            {events.data?.length === 0 && <li>Nothing recorded yet (events are kept for the days the service is set to keep them).</li>}
          </ol>
          {events.data?.length === HISTORY_MAX && (
            <p class="muted">The first {HISTORY_MAX} changes kept are shown; the Events page filtered by this animal follows the later ones.</p>
          )}
        </>
      )}
    </section>
  );
}
