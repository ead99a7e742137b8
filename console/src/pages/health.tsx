// Health (issue 36 §2): the care due (GET /v1/health/due), and an animal's health log — append a
// record, void a wrong one with a reason (kept, struck through). The log is `HealthLog`, so an
// animal's own page shows it too; `#/health/<petId>` opens the log of that animal, found by its name.
import type { HealthRecord, NewHealthRecord } from '@petstore/client';
import { useEffect, useState } from 'preact/hooks';
import { petHref, pageHref, useRoute } from '../route.ts';
import {
  Alert,
  Field,
  Missing,
  NO_PROBLEM,
  Notice,
  PageHeading,
  Pager,
  type Problem,
  problemOf,
  useLive,
  useLoad,
  usePager,
  usePetsById,
  useSession,
} from '../ui.tsx';

type Kind = HealthRecord['kind'];
/** The kinds in the API's order, with the words staff read (checked against the API's enum by the type). */
export const KIND_LABELS = {
  vaccination: 'Vaccination',
  deworming: 'Deworming',
  exam: 'Examination',
  treatment: 'Treatment',
  note: 'Note',
} as const satisfies Record<Kind, string>;
const KINDS = Object.keys(KIND_LABELS) as Kind[];

/** A day as the API writes it (YYYY-MM-DD), in this browser's time zone. */
function localDate(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
const today = () => localDate(new Date());
const tomorrow = () => localDate(new Date(Date.now() + 86_400_000));

const isHealthEvent = (e: { type: string }) => e.type.startsWith('pet.health.') || e.type === 'pet.deleted';

/** The animal the address names (`#/health/12`). */
function usePetInRoute(): number | undefined {
  const route = useRoute();
  const id = route.kind === 'page' && route.page === 'health' ? Number(route.rest[0]) : Number.NaN;
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

export function HealthPage() {
  const { session } = useSession();
  const petId = usePetInRoute();
  if (!session.can('health:read'))
    return (
      <section aria-labelledby="page-title">
        <PageHeading>Health</PageHeading>
        <Missing scope="health:read" what="read health logs" />
      </section>
    );
  return (
    <section aria-labelledby="page-title">
      <PageHeading>Health</PageHeading>
      <DueList />
      <h2 id="log-title">Health log</h2>
      <PickAnimal open={petId} />
      {petId === undefined ? <p class="muted">Find an animal by its name, or choose one from the care due above.</p> : <OpenLog petId={petId} />}
    </section>
  );
}

/** Finds animals by name (the API's search) and opens the log of the one chosen. */
function PickAnimal({ open }: { open: number | undefined }) {
  const { session } = useSession();
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setQ(typed.trim()), 300);
    return () => clearTimeout(timer);
  }, [typed]);
  const found = useLoad(async () => (q ? (await session.client.pets.search(q, { limit: 10 })).data : []), [q]);
  return (
    <div class="pick-animal">
      <form class="inline" aria-label="Open a health log" onSubmit={(e) => e.preventDefault()}>
        <Field id="log-pet" label="Animal" hint="Its name, or words of it">
          {(a11y) => <input {...a11y} type="search" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} maxLength={200} />}
        </Field>
      </form>
      {found.error && <Alert>{found.error}</Alert>}
      {q && found.data && (
        <ul class="found" aria-label="Animals found">
          {found.data.map((p) => (
            <li key={p.id}>
              <a href={pageHref(`health/${p.id}`)} aria-current={p.id === open ? 'true' : undefined}>
                {p.name}
              </a>{' '}
              <span class="muted">
                (pet {p.id}, {p.status})
              </span>
            </li>
          ))}
          {found.data.length === 0 && <li>No animal matches “{q}”.</li>}
        </ul>
      )}
    </div>
  );
}

/** The log of the animal the address names, under its name, with a link to its page. */
function OpenLog({ petId }: { petId: number }) {
  const name = usePetsById([petId]).get(petId)?.name;
  return (
    <>
      <p>
        <a href={petHref(petId)}>{name ?? `Pet ${petId}`}’s page</a>: photos, record, orders and history
      </p>
      <HealthLog petId={petId} name={name} />
    </>
  );
}

/** The care due before a day (tomorrow by default: what is due today or overdue), earliest first. */
function DueList() {
  const { session } = useSession();
  const [before, setBefore] = useState(tomorrow);
  const pager = usePager([before]);
  const due = useLoad(() => session.client.health.listDue({ before, limit: 20, cursor: pager.cursor }), [before, pager.cursor]);
  useLive(isHealthEvent, due.reload);
  const pets = usePetsById(due.data?.data.map((r) => r.petId) ?? []);
  return (
    <>
      <h2 id="due-title">Due for care</h2>
      <form class="filters" aria-label="Due for care" onSubmit={(e) => e.preventDefault()}>
        <span class="filter">
          <label for="due-before">Due before</label>
          <input id="due-before" type="date" value={before} onChange={(e) => e.currentTarget.value && setBefore(e.currentTarget.value)} required />
        </span>
      </form>
      {due.error && <Alert>{due.error}</Alert>}
      <table>
        <caption>Due before {before}</caption>
        <thead>
          <tr>
            <th scope="col">Animal</th>
            <th scope="col">Care</th>
            <th scope="col">Last given</th>
            <th scope="col">Next due</th>
          </tr>
        </thead>
        <tbody>
          {due.data?.data.map((r) => (
            <tr key={r.id}>
              <td data-label="Animal">
                <a href={petHref(r.petId)}>{pets.get(r.petId)?.name ?? `Pet ${r.petId}`}</a>
              </td>
              <td data-label="Care">
                {KIND_LABELS[r.kind]}: {r.name}
              </td>
              <td data-label="Last given">{r.date}</td>
              <td data-label="Next due">
                {r.nextDue}
                {r.nextDue !== undefined && r.nextDue < today() ? (
                  <>
                    {' '}
                    <span class="badge cancelled">overdue</span>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
          {due.data?.data.length === 0 && (
            <tr>
              <td colSpan={4}>Nothing is due before {before}.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pager={pager} nextCursor={due.data?.nextCursor} label="Due for care" />
    </>
  );
}

/** One animal's health log, latest first, voided records struck through; add and void with health:write. */
export function HealthLog({ petId, name }: { petId: number; name?: string | undefined }) {
  const { session } = useSession();
  const { client } = session;
  const pager = usePager([petId]);
  const log = useLoad(() => client.health.list(petId, { limit: 20, cursor: pager.cursor }), [petId, pager.cursor]);
  useLive(isHealthEvent, log.reload);
  const [adding, setAdding] = useState(false);
  const [voiding, setVoiding] = useState<{ id: number; reason: string; problem: Problem } | null>(null);
  const [message, setMessage] = useState<string>();
  const canWrite = session.can('health:write');

  const voidRecord = async (e: Event) => {
    e.preventDefault();
    if (!voiding) return;
    try {
      const voided = await client.health.void(petId, voiding.id, { reason: voiding.reason });
      setVoiding(null);
      setMessage(`Voided the record of ${voided.date} (${voided.name}).`);
      log.reload();
    } catch (err) {
      setVoiding({ ...voiding, problem: problemOf(err) });
    }
  };

  return (
    <div class="health-log">
      {canWrite ? (
        <button type="button" class="primary" onClick={() => setAdding(true)} disabled={adding}>
          Add record
        </button>
      ) : (
        <Missing scope="health:write" what="add or void health records" />
      )}
      {adding && (
        <RecordForm
          petId={petId}
          onDone={(saved) => {
            setAdding(false);
            if (saved) {
              setMessage(`Added the ${KIND_LABELS[saved.kind].toLowerCase()} of ${saved.date}.`);
              log.reload();
            }
          }}
        />
      )}
      {message && <Notice>{message}</Notice>}
      {log.error && <Alert>{log.error}</Alert>}
      <table>
        <caption>
          Health log of {name ?? `pet ${petId}`}
          {log.loading ? ' (loading…)' : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Kind</th>
            <th scope="col">Name</th>
            <th scope="col">Batch</th>
            <th scope="col">Given by</th>
            <th scope="col">Next due</th>
            <th scope="col">Notes</th>
            {canWrite && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {log.data?.data.map((r) => (
            <tr key={r.id} class={r.voided ? 'voided' : undefined}>
              <td data-label="Date">{struck(r, r.date)}</td>
              <td data-label="Kind">{struck(r, KIND_LABELS[r.kind])}</td>
              <td data-label="Name">{struck(r, r.name)}</td>
              <td data-label="Batch">{struck(r, r.batch ?? '—')}</td>
              <td data-label="Given by">{struck(r, r.givenBy)}</td>
              <td data-label="Next due">{struck(r, r.nextDue ?? '—')}</td>
              <td data-label="Notes">
                {struck(r, r.notes ?? '')}
                {r.voided && <p class="muted">Voided: {r.voided.reason}</p>}
              </td>
              {canWrite && (
                <td data-label="Actions" class="actions">
                  {voiding?.id === r.id ? (
                    <form class="inline" aria-label={`Void the record of ${r.date}`} onSubmit={voidRecord}>
                      <Field id={`void-${r.id}`} label="Reason" error={voiding.problem.fields.reason ?? voiding.problem.general}>
                        {(a11y) => (
                          <input
                            {...a11y}
                            value={voiding.reason}
                            onInput={(e) => setVoiding({ ...voiding, reason: e.currentTarget.value })}
                            required
                            maxLength={500}
                          />
                        )}
                      </Field>
                      <button type="submit" class="danger">
                        Void record
                      </button>
                      <button type="button" onClick={() => setVoiding(null)}>
                        Cancel
                      </button>
                    </form>
                  ) : r.voided ? null : (
                    <button type="button" class="danger" onClick={() => setVoiding({ id: r.id, reason: '', problem: NO_PROBLEM })}>
                      Void
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
          {log.data?.data.length === 0 && (
            <tr>
              <td colSpan={canWrite ? 8 : 7}>No health records yet.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pager={pager} nextCursor={log.data?.nextCursor} label="Health log" />
    </div>
  );
}

/** A voided record's text, struck through (the log is evidence: it is shown, not hidden). */
const struck = (r: HealthRecord, text: string) => (r.voided ? <s>{text}</s> : text);

interface Draft {
  kind: Kind;
  date: string;
  name: string;
  batch: string;
  givenBy: string;
  nextDue: string;
  notes: string;
}

/** Adds a record; a 400 is shown beside the field it names. */
function RecordForm({ petId, onDone }: { petId: number; onDone: (saved: HealthRecord | undefined) => void }) {
  const { session } = useSession();
  const [draft, setDraft] = useState<Draft>({ kind: 'vaccination', date: today(), name: '', batch: '', givenBy: '', nextDue: '', notes: '' });
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const [saving, setSaving] = useState(false);
  const set = (field: keyof Draft) => (e: { currentTarget: { value: string } }) => setDraft({ ...draft, [field]: e.currentTarget.value });
  const save = async (e: Event) => {
    e.preventDefault();
    setSaving(true);
    setProblem(NO_PROBLEM);
    // Empty optional fields are left out: the API refuses an empty text.
    const input: NewHealthRecord = {
      kind: draft.kind,
      date: draft.date,
      name: draft.name,
      givenBy: draft.givenBy,
      ...(draft.batch.trim() ? { batch: draft.batch } : {}),
      ...(draft.nextDue ? { nextDue: draft.nextDue } : {}),
      ...(draft.notes.trim() ? { notes: draft.notes } : {}),
    };
    try {
      onDone(await session.client.health.add(petId, input));
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setSaving(false);
    }
  };
  return (
    <form class="card" aria-label="Add health record" onSubmit={save}>
      <Field id="health-kind" label="Kind" error={problem.fields.kind}>
        {(a11y) => (
          <select {...a11y} value={draft.kind} onChange={set('kind')}>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id="health-date" label="Date" error={problem.fields.date} hint="The day the care was given; not in the future.">
        {(a11y) => <input {...a11y} type="date" value={draft.date} onInput={set('date')} required />}
      </Field>
      <Field id="health-name" label="Name" error={problem.fields.name} hint="The vaccine, the product or the examination.">
        {(a11y) => <input {...a11y} value={draft.name} onInput={set('name')} required maxLength={200} />}
      </Field>
      <Field id="health-batch" label="Batch" error={problem.fields.batch}>
        {(a11y) => <input {...a11y} value={draft.batch} onInput={set('batch')} maxLength={100} />}
      </Field>
      <Field id="health-given-by" label="Given by" error={problem.fields.givenBy}>
        {(a11y) => <input {...a11y} value={draft.givenBy} onInput={set('givenBy')} required maxLength={200} />}
      </Field>
      <Field id="health-next-due" label="Next due" error={problem.fields.nextDue} hint="When this care is due again, if it is.">
        {(a11y) => <input {...a11y} type="date" value={draft.nextDue} onInput={set('nextDue')} />}
      </Field>
      <Field id="health-notes" label="Notes" error={problem.fields.notes}>
        {(a11y) => <textarea {...a11y} value={draft.notes} onInput={set('notes')} maxLength={2000} rows={2} />}
      </Field>
      {problem.general && <Alert>{problem.general}</Alert>}
      <div class="buttons">
        <button type="submit" class="primary" disabled={saving}>
          Save record
        </button>
        <button type="button" onClick={() => onDone(undefined)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
