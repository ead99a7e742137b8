// Customers: search, add, edit (a merge patch under If-Match, with the pets' conflict screen), export
// what is held on one, erase one (the confirmation says what a sale record keeps). Personal data:
// the page needs customers:read, its forms customers:write.
import { COUNTRIES, type Country, type CustomerExport, type Customer, type CustomerPatch, PetstoreError } from '@petstore/client';
import { useEffect, useState } from 'preact/hooks';
import { Alert, Field, Missing, NO_PROBLEM, PageHeading, Pager, type Problem, problemOf, useLive, useLoad, useOutcome, usePager, useSession } from '../ui.tsx';

const EMPTY = { name: '', email: '', phone: '', line1: '', city: '', postalCode: '', country: 'US' };
type Draft = typeof EMPTY;
const LABELS: Readonly<Record<keyof Draft, string>> = {
  name: 'Name',
  email: 'E-mail',
  phone: 'Telephone',
  line1: 'Street and number',
  city: 'City',
  postalCode: 'Postal code',
  country: 'Country',
};
const ADDRESS = ['line1', 'city', 'postalCode', 'country'] as const;

function draftOf(c: Customer): Draft {
  const { line1, city, postalCode, country } = c.address;
  return { name: c.name, email: c.email ?? '', phone: c.phone ?? '', line1, city, postalCode, country };
}

/** The merge patch that turns `base` into `draft`: only what differs; an emptied e-mail or telephone is removed (`null`). */
function patchOf(draft: Draft, base: Draft): CustomerPatch {
  const patch: CustomerPatch = {};
  if (draft.name !== base.name) patch.name = draft.name;
  if (draft.email !== base.email) patch.email = draft.email || null;
  if (draft.phone !== base.phone) patch.phone = draft.phone || null;
  const address = Object.fromEntries(ADDRESS.filter((k) => draft[k] !== base[k]).map((k) => [k, draft[k]]));
  if (Object.keys(address).length > 0) patch.address = address as CustomerPatch['address'];
  return patch;
}

export function CustomersPage() {
  const { session } = useSession();
  const { client } = session;
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setQ(typed.trim()), 300);
    return () => clearTimeout(timer);
  }, [typed]);
  const pager = usePager([q]);
  const canRead = session.can('customers:read');
  const canWrite = session.can('customers:write');
  const customers = useLoad(
    async () => (canRead ? client.customers.list({ ...(q ? { q } : {}), limit: 20, cursor: pager.cursor }) : undefined),
    [q, pager.cursor],
  );
  useLive((e) => e.type.startsWith('customer.'), customers.reload);
  const [draft, setDraft] = useState(EMPTY);
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const [exported, setExported] = useState<CustomerExport | null>(null);
  const [editing, setEditing] = useState<{ customer: Customer; etag: string } | undefined>();
  const [conflict, setConflict] = useState<{ theirs: Customer; etag: string } | undefined>();
  const outcome = useOutcome();

  const edit = async (c: Customer) => {
    outcome.start();
    setProblem(NO_PROBLEM);
    setConflict(undefined);
    try {
      const { data, etag } = await client.customers.get.withResponse(c.id);
      setEditing({ customer: data, etag });
      setDraft(draftOf(data));
      document.getElementById('customer-name')?.focus();
    } catch (err) {
      outcome.failed(err);
    }
  };
  const stopEditing = () => {
    setEditing(undefined);
    setConflict(undefined);
    setProblem(NO_PROBLEM);
    setDraft(EMPTY);
  };
  /**
   * Saves what the person changed in the form since `base` (what it was loaded with) as a merge patch,
   * only if the customer still has `etag`; a 412 shows what the other person changed.
   */
  const update = async (base: Customer, etag: string) => {
    try {
      const saved = await client.customers.update(base.id, patchOf(draft, draftOf(base)), { ifMatch: etag });
      stopEditing();
      outcome.succeeded(`Saved ${saved.name}.`);
      customers.reload();
    } catch (err) {
      if (err instanceof PetstoreError && err.code === 'precondition_failed') {
        const current = await client.customers.get.withResponse(base.id);
        setConflict({ theirs: current.data, etag: current.etag });
      } else setProblem(problemOf(err));
    }
  };

  const add = async (e: Event) => {
    e.preventDefault();
    outcome.start();
    setProblem(NO_PROBLEM);
    if (editing) return update(editing.customer, editing.etag);
    try {
      const { name, email, phone, line1, city, postalCode, country } = draft;
      const created = await client.customers.create({
        name,
        ...(email ? { email } : {}),
        ...(phone ? { phone } : {}),
        address: { line1, city, postalCode, country: country as Country },
      });
      setDraft(EMPTY);
      outcome.succeeded(`Added customer ${created.name}.`);
      customers.reload();
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  const exportOne = async (c: Customer) => {
    outcome.start();
    try {
      setExported(await client.customers.export(c.id));
    } catch (err) {
      outcome.failed(err);
    }
  };
  const erase = async (c: Customer) => {
    outcome.start();
    if (
      !confirm(
        `Erase ${c.name}'s personal data? Their e-mail, telephone and notes go now. If they bought an animal, the sale record keeps their name and address until two years after the sale (SALE_RECORD_RETENTION_DAYS), then those go too.`,
      )
    )
      return;
    try {
      const answer = await client.customers.erase(c.id);
      outcome.succeeded(
        answer.kept.length === 0
          ? `Erased ${c.name}: nothing was kept.`
          : `Erased ${c.name}. Kept for the sale record: ${answer.kept.join(' and ')}, until ${answer.keptUntil?.slice(0, 10)}.`,
      );
      setExported(null);
      customers.reload();
    } catch (err) {
      outcome.failed(err);
    }
  };

  if (!canRead)
    return (
      <section aria-labelledby="page-title">
        <PageHeading>Customers</PageHeading>
        <Missing scope="customers:read" what="see customers" />
      </section>
    );
  const field = (key: keyof typeof EMPTY, label: string, props: Record<string, unknown> = {}) => (
    <Field
      id={`customer-${key}`}
      label={label}
      error={problem.fields[key === 'line1' || key === 'city' || key === 'postalCode' || key === 'country' ? `address.${key}` : key]}
    >
      {(a11y) => <input {...a11y} {...props} value={draft[key]} onInput={(e) => setDraft({ ...draft, [key]: e.currentTarget.value })} />}
    </Field>
  );
  return (
    <section aria-labelledby="page-title">
      <PageHeading>Customers</PageHeading>
      {canWrite ? (
        <form class="card" aria-label={editing ? `Edit ${editing.customer.name}` : 'Add customer'} onSubmit={add}>
          {editing && <h2>Edit {editing.customer.name}</h2>}
          {editing && conflict && (
            <Conflict
              mine={editing.customer}
              theirs={conflict.theirs}
              reload={() => {
                setEditing({ customer: conflict.theirs, etag: conflict.etag });
                setDraft(draftOf(conflict.theirs));
                setConflict(undefined);
              }}
              overwrite={() => {
                // Only what this person changed (against what they loaded) goes over their version.
                setEditing({ customer: editing.customer, etag: conflict.etag });
                setConflict(undefined);
                void update(editing.customer, conflict.etag);
              }}
            />
          )}
          {field('name', 'Name', { required: true, maxLength: 200 })}
          {field('email', 'E-mail', { type: 'email', maxLength: 254 })}
          {field('phone', 'Telephone', { type: 'tel', maxLength: 32 })}
          {field('line1', 'Street and number', { required: true, maxLength: 200 })}
          {field('city', 'City', { required: true, maxLength: 100 })}
          {field('postalCode', 'Postal code', { required: true, maxLength: 20 })}
          <Field id="customer-country" label="Country" error={problem.fields['address.country']}>
            {(a11y) => (
              <select {...a11y} value={draft.country} onChange={(e) => setDraft({ ...draft, country: e.currentTarget.value })}>
                {COUNTRIES.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div class="buttons">
            <button type="submit" class="primary">
              {editing ? 'Save customer' : 'Add customer'}
            </button>
            {editing && (
              <button type="button" onClick={stopEditing}>
                Cancel edit
              </button>
            )}
          </div>
          {problem.general && <Alert>{problem.general}</Alert>}
        </form>
      ) : (
        <Missing scope="customers:write" what="add, edit or erase customers" />
      )}
      <form class="filters" aria-label="Find customers" onSubmit={(e) => e.preventDefault()}>
        <Field id="customers-search" label="Search by name, e-mail or telephone">
          {(a11y) => <input {...a11y} type="search" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} maxLength={100} />}
        </Field>
      </form>
      {outcome.view}
      {customers.error && <Alert>{customers.error}</Alert>}
      <table>
        <caption>Customers</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Contact</th>
            <th scope="col">Address</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {customers.data?.data.map((c) => (
            <tr key={c.id}>
              <td data-label="Name">{c.name}</td>
              <td data-label="Contact">{[c.email, c.phone].filter(Boolean).join(' · ') || '—'}</td>
              <td data-label="Address">
                {c.address.line1}, {c.address.postalCode} {c.address.city}, {c.address.country}
              </td>
              <td data-label="Actions" class="actions">
                <button type="button" onClick={() => exportOne(c)} aria-label={`Export ${c.name}`}>
                  Export
                </button>
                {canWrite && (
                  <button type="button" onClick={() => edit(c)} aria-label={`Edit ${c.name}`}>
                    Edit
                  </button>
                )}
                {canWrite && (
                  <button type="button" class="danger" onClick={() => erase(c)} aria-label={`Erase ${c.name}`}>
                    Erase
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager pager={pager} nextCursor={customers.data?.nextCursor} label="Customers" />
      {exported && (
        <section aria-label="Export">
          <h2>Everything held on {exported.customer.name ?? `customer ${exported.customer.id}`}</h2>
          <pre class="export">{JSON.stringify(exported, null, 2)}</pre>
        </section>
      )}
    </section>
  );
}

/** Someone else saved the customer meanwhile (412): what they changed, field by field, and the two ways on; the edit is kept. */
function Conflict({ mine, theirs, reload, overwrite }: { mine: Customer; theirs: Customer; reload: () => void; overwrite: () => void }) {
  const before = draftOf(mine);
  const after = draftOf(theirs);
  const changed = (Object.keys(LABELS) as (keyof Draft)[]).filter((k) => before[k] !== after[k]);
  return (
    <div role="alert" class="conflict">
      <p>
        <strong>Someone else changed this customer</strong> while you were editing. Your edit is kept below.
      </p>
      <ul>
        {changed.length === 0 && <li>They changed nothing you can edit here.</li>}
        {changed.map((k) => (
          <li key={k}>
            {LABELS[k]}: was “{before[k] || 'none'}”, now “{after[k] || 'none'}”
          </li>
        ))}
      </ul>
      <button type="button" onClick={reload}>
        Reload their version
      </button>
      <button type="button" class="danger" onClick={overwrite}>
        Overwrite with my edit
      </button>
    </div>
  );
}
