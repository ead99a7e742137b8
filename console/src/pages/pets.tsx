// Pets: a paged table with search, filters (status, category, tag, sex, breed, record incomplete) and
// sorting, each animal's record state; add / edit / withdraw with price, tags, description and the
// animal's legal record (docs/api.md, "The animal's record"), field-level errors and the 412 flow.
//
// Photos (issue 23 item 5): PetPhotos, in the edit form.
import { type Category, PET_STATUSES, type Pet, type PetStatus, type Petstore, PetstoreError, type Photo } from '@petstore/client';
import { useEffect, useState } from 'preact/hooks';
import { amountText, formatMoney, parseAmount } from '../money.ts';
import { petHref } from '../route.ts';
import { describeError } from '../session.ts';
import {
  Alert,
  ExportCsv,
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
  useOutcome,
  usePager,
  useSession,
} from '../ui.tsx';

/** What the table asks GET /v1/pets for. */
interface PetQuery {
  readonly status: PetStatus | '';
  readonly categoryId: string;
  /** The search words (`q`), as typed. */
  readonly q: string;
  /** Tags to filter by, separated by spaces or commas (`tag=a&tag=b`). */
  readonly tags: string;
  readonly sex: PetSex | '';
  /** A breed's words, as typed. */
  readonly breed: string;
  /** Only the animals whose record lacks what the store requires. */
  readonly incomplete: boolean;
  readonly sort: PetSort;
}

type PetSex = NonNullable<Pet['sex']>;
const SEXES: readonly PetSex[] = ['male', 'female', 'unknown'];
type SourceKind = NonNullable<Pet['source']>['kind'];
const SOURCE_KINDS: readonly { value: SourceKind; label: string }[] = [
  { value: 'breeder', label: 'Breeder' },
  { value: 'supplier', label: 'Supplier' },
  { value: 'private', label: 'Private person' },
  { value: 'surrender', label: 'Surrendered by its owner' },
  { value: 'born-in-store', label: 'Born in store' },
  { value: 'transfer', label: 'Transfer' },
];
/** The record's members as people read them (recordMissing names them as the API does). */
const RECORD_LABELS: Readonly<Record<string, string>> = {
  source: 'Source',
  acquiredAt: 'Acquired',
  birthDate: 'Birth date',
  colour: 'Colour',
  sex: 'Sex',
  breed: 'Breed',
  neutered: 'Neutered',
  microchip: 'Microchip',
};

type PetSort = 'id' | '-id' | 'name' | '-name' | 'price' | '-price' | 'createdAt' | '-createdAt';
const SORTS: readonly { value: PetSort; label: string }[] = [
  { value: 'id', label: 'ID, oldest first' },
  { value: '-id', label: 'ID, newest first' },
  { value: 'name', label: 'Name, A to Z' },
  { value: '-name', label: 'Name, Z to A' },
  { value: 'price', label: 'Price, lowest first' },
  { value: '-price', label: 'Price, highest first' },
  { value: 'createdAt', label: 'Added, oldest first' },
  { value: '-createdAt', label: 'Added, newest first' },
];
/** Tags as typed, separated by spaces or commas; a tag is lower case, so capitals typed are lowered before sending. */
const tagsOf = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);

export function PetsPage() {
  const { session } = useSession();
  const { client } = session;
  const [query, setQuery] = useState<PetQuery>({ status: '', categoryId: '', q: '', tags: '', sex: '', breed: '', incomplete: false, sort: 'id' });
  // What is typed in Search, Tag and Breed is asked for once typing pauses (300 ms), not on every key.
  const [typed, setTyped] = useState({ q: '', tags: '', breed: '' });
  useEffect(() => {
    if (typed.q === query.q && typed.tags === query.tags && typed.breed === query.breed) return;
    const timer = setTimeout(() => setQuery((old) => ({ ...old, q: typed.q, tags: typed.tags, breed: typed.breed })), 300);
    return () => clearTimeout(timer);
  }, [typed.q, typed.tags, typed.breed]);
  const q = query.q.trim();
  const tags = tagsOf(query.tags);
  const breed = query.breed.trim();
  const pager = usePager([query.status, query.categoryId, q, query.tags, query.sex, breed, query.incomplete, query.sort]);
  // What the filters ask for: the page shown, and Export CSV (every page of it).
  const filters = {
    status: query.status || undefined,
    categoryId: query.categoryId ? Number(query.categoryId) : undefined,
    tag: tags.length > 0 ? tags : undefined,
    sex: query.sex || undefined,
    breed: breed || undefined,
    recordComplete: query.incomplete ? ('false' as const) : undefined,
    sort: query.sort,
  };
  const pets = useLoad(() => {
    const page = { ...filters, limit: 20, cursor: pager.cursor };
    return q ? client.pets.search(q, page) : client.pets.list(page);
  }, [pager.cursor, query.status, query.categoryId, q, query.tags, query.sex, breed, query.incomplete, query.sort]);
  // The animals ticked for a bulk change: those of the page shown only (a reload keeps those still on it).
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const shown = pets.error ? [] : (pets.data?.data ?? []);
  useEffect(() => {
    const onPage = new Set(shown.map((p) => p.id));
    setSelected((old) => new Set([...old].filter((id) => onPage.has(id))));
  }, [pets.data, pets.error]);
  const toggle = (id: number, on: boolean) =>
    setSelected((old) => {
      const next = new Set(old);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const allSelected = shown.length > 0 && shown.every((p) => selected.has(p.id));
  // What the last bulk change did: shown after the selection it was for is cleared.
  const [bulkResult, setBulkResult] = useState<BulkOutcome | undefined>();
  const categories = useLoad(() => client.categories.list(), []);
  useLive((e) => e.type.startsWith('pet.') || e.type.startsWith('order.'), pets.reload);
  useLive((e) => e.type.startsWith('category.'), categories.reload);
  const [editing, setEditing] = useState<{ id: number | null } | null>(null);
  const outcome = useOutcome();
  const canWrite = session.can('pets:write');
  const categoryName = (id: number) => categories.data?.find((c) => c.id === id)?.name ?? `#${id}`;
  const edit = (id: number | null) => {
    outcome.start();
    setEditing({ id });
  };
  // A filter the API refuses is said beside that filter, and the results of the filters before it are not shown as if they were its.
  const listProblem = pets.cause === undefined ? NO_PROBLEM : problemOf(pets.cause);

  const withdraw = async (pet: Pet) => {
    outcome.start();
    if (!confirm(`Withdraw ${pet.name} (pet ${pet.id}) from the store?`)) return;
    try {
      await client.pets.delete(pet.id);
      outcome.succeeded(`Withdrew ${pet.name}.`);
      pets.reload();
    } catch (err) {
      outcome.failed(err);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeading>Pets</PageHeading>
      {canWrite ? (
        <button type="button" class="primary" onClick={() => edit(null)} disabled={editing !== null}>
          Add pet
        </button>
      ) : (
        <Missing scope="pets:write" what="add, edit or withdraw pets" />
      )}
      {editing && (
        <PetForm
          id={editing.id}
          categories={categories.data ?? []}
          onDone={(saved) => {
            setEditing(null);
            if (saved) {
              outcome.succeeded(`Saved ${saved.name}.`);
              pets.reload();
            }
          }}
        />
      )}
      {outcome.view}
      <form class="filters" aria-label="Filter pets" onSubmit={(e) => e.preventDefault()}>
        <Field id="pets-search" label="Search" error={listProblem.fields.q}>
          {(a11y) => <input {...a11y} type="search" value={typed.q} onInput={(e) => setTyped({ ...typed, q: e.currentTarget.value })} maxLength={200} />}
        </Field>
        <Field id="pets-tag" label="Tag" error={listProblem.fields.tag}>
          {(a11y) => <input {...a11y} value={typed.tags} onInput={(e) => setTyped({ ...typed, tags: e.currentTarget.value })} size={14} />}
        </Field>
        <label>
          Status{' '}
          <select value={query.status} onChange={(e) => setQuery({ ...query, status: e.currentTarget.value as PetStatus | '' })}>
            <StatusOptions none="any" />
          </select>
        </label>
        <label>
          Category{' '}
          <select value={query.categoryId} onChange={(e) => setQuery({ ...query, categoryId: e.currentTarget.value })}>
            <option value="">any</option>
            {categories.data?.map((c) => (
              <option key={c.id} value={String(c.id)}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <span class="filter">
          <label for="pets-sex">Sex</label>
          <select id="pets-sex" value={query.sex} onChange={(e) => setQuery({ ...query, sex: e.currentTarget.value as PetSex | '' })}>
            <option value="">any</option>
            {SEXES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </span>
        <Field id="pets-breed" label="Breed" error={listProblem.fields.breed}>
          {(a11y) => <input {...a11y} value={typed.breed} onInput={(e) => setTyped({ ...typed, breed: e.currentTarget.value })} size={14} maxLength={100} />}
        </Field>
        <label>
          <input type="checkbox" checked={query.incomplete} onChange={(e) => setQuery({ ...query, incomplete: e.currentTarget.checked })} /> Record incomplete
        </label>
        <span class="filter">
          <label for="pets-sort">Sort</label>
          <select id="pets-sort" value={query.sort} onChange={(e) => setQuery({ ...query, sort: e.currentTarget.value as PetSort })}>
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </span>
      </form>
      <ExportCsv what="pets" start={() => client.pets.exportCsv.withResponse({ ...filters, q: q || undefined })} />
      {listProblem.general && <Alert>{listProblem.general}</Alert>}
      {canWrite && selected.size > 0 && (
        <BulkChange
          pets={shown.filter((p) => selected.has(p.id))}
          categories={categories.data ?? []}
          onDone={(result) => {
            setBulkResult(result);
            setSelected(new Set());
            pets.reload();
          }}
        />
      )}
      {bulkResult && <BulkSummary {...bulkResult} />}
      <table>
        <caption>Pets{pets.loading ? ' (loading…)' : ''}</caption>
        <thead>
          <tr>
            <th scope="col" class="nowrap">
              {canWrite && (
                <input
                  type="checkbox"
                  class="select"
                  aria-label="Select all on this page"
                  checked={allSelected}
                  disabled={shown.length === 0}
                  onChange={(e) => setSelected(new Set(e.currentTarget.checked ? shown.map((p) => p.id) : []))}
                />
              )}
              ID
            </th>
            <th scope="col">Name</th>
            <th scope="col">Category</th>
            <th scope="col">Status</th>
            <th scope="col">Price</th>
            <th scope="col">Tags</th>
            <th scope="col">Record</th>
            {canWrite && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {shown.map((pet) => (
            <tr key={pet.id}>
              <td data-label="ID">
                {canWrite && (
                  <input
                    type="checkbox"
                    class="select"
                    aria-label={`Select ${pet.name}`}
                    checked={selected.has(pet.id)}
                    onChange={(e) => toggle(pet.id, e.currentTarget.checked)}
                  />
                )}
                {pet.id}
              </td>
              <td data-label="Name">
                {pet.photoUrls?.[0] && <img class="row-thumb" src={`${pet.photoUrls[0]}/thumb`} alt="" loading="lazy" />}
                <a href={petHref(pet.id)}>{pet.name}</a>
              </td>
              <td data-label="Category">{categoryName(pet.categoryId)}</td>
              <td data-label="Status">
                <span class={`badge ${pet.status}`}>{pet.status}</span>
              </td>
              <td data-label="Price" class="number">
                {pet.price ? formatMoney(pet.price.amount, pet.price.currency) : '—'}
              </td>
              <td data-label="Tags">{pet.tags.join(', ')}</td>
              <td data-label="Record">
                {pet.recordComplete ? (
                  <span class="badge complete">complete</span>
                ) : (
                  <>
                    <span class="badge incomplete">incomplete</span> lacks {pet.recordMissing.map((m) => RECORD_LABELS[m] ?? m).join(', ')}
                  </>
                )}
              </td>
              {canWrite && (
                <td data-label="Actions" class="actions">
                  <button type="button" onClick={() => edit(pet.id)} disabled={editing !== null}>
                    Edit
                  </button>
                  <button type="button" class="danger" onClick={() => withdraw(pet)}>
                    Withdraw
                  </button>
                </td>
              )}
            </tr>
          ))}
          {!pets.error && pets.data?.data.length === 0 && (
            <tr>
              <td colSpan={canWrite ? 8 : 7}>
                No pets{query.status || query.categoryId || q || tags.length > 0 || query.sex || breed || query.incomplete ? ' match these filters' : ' yet'}.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pager={pager} nextCursor={pets.data?.nextCursor} label="Pets" />
    </section>
  );
}

/**
 * Changes the ticked animals at once (POST /v1/pets/bulk): the status, price, tags or category set
 * here (what is left as it is is not sent), each animal under its own rules; then what changed and
 * what was refused, animal by animal, in words.
 */
/** The statuses as a select's options, after `none` (the choice of no status: "any", "keep as is") when given. */
function StatusOptions({ none }: { none?: string }) {
  return (
    <>
      {none !== undefined && <option value="">{none}</option>}
      {PET_STATUSES.map((s) => (
        <option key={s} value={s}>
          {s}
        </option>
      ))}
    </>
  );
}

interface BulkOutcome {
  readonly changed: readonly string[];
  readonly refused: readonly string[];
}

function BulkChange({ pets, categories, onDone }: { pets: readonly Pet[]; categories: readonly Category[]; onDone: (result: BulkOutcome) => void }) {
  const { session } = useSession();
  const { client } = session;
  const [change, setChange] = useState({ status: '' as PetStatus | '', price: '', tags: '', categoryId: '' });
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const [saving, setSaving] = useState(false);
  const nameOf = (id: number) => pets.find((p) => p.id === id)?.name ?? `Pet ${id}`;
  const apply = async (e: Event) => {
    e.preventDefault();
    setProblem(NO_PROBLEM);
    const amount = change.price.trim() === '' ? undefined : parseAmount(change.price, pets[0]?.price?.currency);
    if (amount === undefined && change.price.trim() !== '') {
      setProblem({ fields: { price: `Price must be an amount such as 19.99; got “${change.price}”` }, general: undefined });
      return;
    }
    const patch = {
      ...(change.status === '' ? {} : { status: change.status }),
      ...(amount === undefined ? {} : { price: { amount } }),
      ...(change.tags.trim() === '' ? {} : { tags: tagsOf(change.tags) }),
      ...(change.categoryId === '' ? {} : { categoryId: Number(change.categoryId) }),
    };
    if (Object.keys(patch).length === 0) {
      setProblem({ fields: {}, general: 'Choose a status, a price, tags or a category to set.' });
      return;
    }
    setSaving(true);
    try {
      const done = await client.pets.bulkUpdate({ ids: pets.map((p) => p.id), patch });
      onDone({
        changed: done.updated.map((p) => `${p.name} (pet ${p.id})`),
        refused: done.refused.map((r) => `${nameOf(r.id)} (pet ${r.id}): ${r.error.message}`),
      });
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setSaving(false);
    }
  };
  return (
    <form class="card" aria-label="Change selected pets" onSubmit={apply}>
      <h2>
        Change {pets.length} selected {pets.length === 1 ? 'pet' : 'pets'}
      </h2>
      <label>
        Set status{' '}
        <select value={change.status} onChange={(e) => setChange({ ...change, status: e.currentTarget.value as PetStatus | '' })}>
          <StatusOptions none="keep as is" />
        </select>
      </label>
      <Field id="bulk-price" label="Set price" error={problem.fields.price ?? problem.fields['patch.price.amount']}>
        {(a11y) => (
          <input {...a11y} inputMode="decimal" value={change.price} onInput={(e) => setChange({ ...change, price: e.currentTarget.value })} size={8} />
        )}
      </Field>
      <Field id="bulk-tags" label="Set tags" error={problem.fields['patch.tags']}>
        {(a11y) => <input {...a11y} value={change.tags} onInput={(e) => setChange({ ...change, tags: e.currentTarget.value })} size={14} />}
      </Field>
      <label>
        Set category{' '}
        <select value={change.categoryId} onChange={(e) => setChange({ ...change, categoryId: e.currentTarget.value })}>
          <option value="">keep as is</option>
          {categories.map((c) => (
            <option key={c.id} value={String(c.id)}>
              {c.name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" class="primary" disabled={saving}>
        Apply to {pets.length} selected
      </button>
      {problem.general && <Alert>{problem.general}</Alert>}
    </form>
  );
}

function BulkSummary({ changed, refused }: BulkOutcome) {
  return (
    <div class="bulk-result">
      <Notice>
        Changed {changed.length} of {changed.length + refused.length}
        {changed.length > 0 ? `: ${changed.join(', ')}` : ''}.
      </Notice>
      {refused.length > 0 && (
        <>
          <p>Not changed:</p>
          <ul aria-label="Not changed">
            {refused.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

interface Draft {
  name: string;
  categoryId: string;
  status: PetStatus;
  /** The amount as typed ("19.99"); empty for no price. */
  price: string;
  /** Tags as typed, separated by spaces or commas. */
  tags: string;
  description: string;
  // The record (docs/api.md, "The animal's record"), each as typed; '' is "not recorded".
  breed: string;
  /** 'yes' when mixed. */
  mixed: string;
  secondBreed: string;
  sex: PetSex | '';
  neutered: '' | 'yes' | 'no';
  colour: string;
  birthDate: string;
  /** 'yes' when the birth date is an estimate. */
  estimated: string;
  microchip: string;
  acquiredAt: string;
  sourceKind: SourceKind | '';
  sourceName: string;
  sourceAddress: string;
  sourceLicence: string;
}

const EMPTY_RECORD = {
  breed: '',
  mixed: '',
  secondBreed: '',
  sex: '',
  neutered: '',
  colour: '',
  birthDate: '',
  estimated: '',
  microchip: '',
  acquiredAt: '',
  sourceKind: '',
  sourceName: '',
  sourceAddress: '',
  sourceLicence: '',
} as const satisfies Partial<Draft>;

/** The record's members of a draft, as the API takes them: what is empty is null (not recorded, or removed). */
function recordOf(d: Draft) {
  const text = (value: string) => (value.trim() === '' ? null : value);
  return {
    breed:
      d.breed.trim() === ''
        ? null
        : { primary: d.breed, ...(d.mixed === 'yes' ? { mixed: true } : {}), ...(text(d.secondBreed) ? { secondary: d.secondBreed } : {}) },
    sex: d.sex === '' ? null : d.sex,
    neutered: d.neutered === '' ? null : d.neutered === 'yes',
    colour: text(d.colour),
    birthDate: text(d.birthDate),
    birthDateEstimated: d.birthDate === '' ? null : d.estimated === 'yes',
    microchip: text(d.microchip),
    acquiredAt: text(d.acquiredAt),
    source:
      d.sourceKind === ''
        ? null
        : {
            kind: d.sourceKind,
            ...(text(d.sourceName) ? { name: d.sourceName } : {}),
            ...(text(d.sourceAddress) ? { address: d.sourceAddress } : {}),
            ...(text(d.sourceLicence) ? { licence: d.sourceLicence } : {}),
          },
  };
}

/**
 * One animal and its entity tag, read from the listing (`GET /v1/pets?id=`): the deprecated
 * GET /v1/pets/{petId} is not used. The listed `etag` is the animal's own ETag, which If-Match takes.
 */
export async function readPet(client: Petstore, id: number): Promise<{ data: Pet; etag: string }> {
  const [listed] = (await client.pets.list({ id: [id] })).data;
  if (listed === undefined) throw new Error(`Pet ${id} is no longer in the store (it may have been withdrawn).`);
  const { etag, ...data } = listed;
  return { data, etag };
}

const draftOf = (pet: Pet): Draft => ({
  name: pet.name,
  categoryId: String(pet.categoryId),
  status: pet.status,
  price: pet.price ? amountText(pet.price.amount, pet.price.currency) : '',
  tags: pet.tags.join(' '),
  description: pet.description ?? '',
  breed: pet.breed?.primary ?? '',
  mixed: pet.breed?.mixed ? 'yes' : '',
  secondBreed: pet.breed?.secondary ?? '',
  sex: pet.sex ?? '',
  neutered: pet.neutered === undefined ? '' : pet.neutered ? 'yes' : 'no',
  colour: pet.colour ?? '',
  birthDate: pet.birthDate ?? '',
  estimated: pet.birthDateEstimated ? 'yes' : '',
  microchip: pet.microchip ?? '',
  acquiredAt: pet.acquiredAt ?? '',
  sourceKind: pet.source?.kind ?? '',
  sourceName: pet.source?.name ?? '',
  sourceAddress: pet.source?.address ?? '',
  sourceLicence: pet.source?.licence ?? '',
});
const FIELD_LABELS: Record<keyof Draft, string> = {
  name: 'Name',
  categoryId: 'Category',
  status: 'Status',
  price: 'Price',
  tags: 'Tags',
  description: 'Description',
  breed: 'Breed',
  mixed: 'Mixed breed',
  secondBreed: 'Second breed',
  sex: 'Sex',
  neutered: 'Neutered',
  colour: 'Colour',
  birthDate: 'Birth date',
  estimated: 'Estimated',
  microchip: 'Microchip',
  acquiredAt: 'Acquired',
  sourceKind: 'Source',
  sourceName: 'Source name',
  sourceAddress: 'Source address',
  sourceLicence: 'Source licence',
};

/**
 * Add (id null) or edit a pet. An edit sends If-Match with the ETag it was loaded with; a 412 keeps
 * the person's draft, shows what the other change was, and offers to take theirs or to overwrite.
 */
export function PetForm({ id, categories, onDone }: { id: number | null; categories: readonly Category[]; onDone: (saved: Pet | undefined) => void }) {
  const { session } = useSession();
  const { client } = session;
  const [draft, setDraft] = useState<Draft>({
    name: '',
    categoryId: categories[0] ? String(categories[0].id) : '',
    status: 'available',
    price: '',
    tags: '',
    description: '',
    ...EMPTY_RECORD,
  });
  const [loaded, setLoaded] = useState<{ pet: Pet; etag: string } | undefined>();
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const [conflict, setConflict] = useState<{ theirs: Pet; etag: string } | undefined>();
  const [saving, setSaving] = useState(false);
  /** Add pet: photos chosen with the form, uploaded once the pet exists (the API takes a photo of a saved pet). */
  const [files, setFiles] = useState<readonly File[]>([]);
  const load = useLoad(async () => {
    if (id === null) return undefined;
    const { data, etag } = await readPet(client, id);
    setLoaded({ pet: data, etag });
    setDraft(draftOf(data));
    return data;
  }, [id]);

  // The price is in the store's currency: the pet's own when it has one, else read as cents-like (2 digits).
  const currency = loaded?.pet.price?.currency;
  // A photo added or removed changes the pet's ETag: take the new one, keeping the person's draft.
  const photosChanged = async () => {
    if (id === null) return;
    const { data, etag } = await readPet(client, id);
    setLoaded({ pet: data, etag });
  };
  const save = async (ifMatch?: string) => {
    setProblem(NO_PROBLEM);
    const amount = draft.price.trim() === '' ? null : parseAmount(draft.price, currency);
    if (amount === undefined) {
      setProblem({ fields: { price: `Price must be an amount such as 19.99 (or left empty for no price); got “${draft.price}”` }, general: undefined });
      return;
    }
    const common = { name: draft.name, categoryId: Number(draft.categoryId), status: draft.status };
    const tags = tagsOf(draft.tags);
    const description = draft.description === '' ? null : draft.description;
    const record = recordOf(draft);
    setSaving(true);
    try {
      if (id === null) {
        const created = await client.pets.create({
          ...common,
          ...(amount === null ? {} : { price: { amount } }),
          ...(tags.length ? { tags } : {}),
          ...(description === null ? {} : { description }),
          // A new animal's record: only what was filled in.
          ...Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null)),
        });
        try {
          for (const file of files) await client.pets.addPhoto(created.id, file);
        } catch (err) {
          // The pet is saved; say which part did not happen rather than lose it.
          setProblem({ fields: {}, general: `${created.name} was saved, but a photo was not: ${describeError(err)} Add it through Edit.` });
          return;
        }
        onDone(created);
      } else
        onDone(
          await client.pets.update(
            id,
            { ...common, price: amount === null ? null : { amount }, tags, description, ...record },
            { ifMatch: ifMatch ?? loaded!.etag },
          ),
        );
    } catch (err) {
      if (err instanceof PetstoreError && err.code === 'precondition_failed' && id !== null) {
        const current = await readPet(client, id);
        setConflict({ theirs: current.data, etag: current.etag });
      } else setProblem(problemOf(err));
    } finally {
      setSaving(false);
    }
  };

  const title = id === null ? 'Add pet' : `Edit pet ${id}`;
  if (load.error) return <Alert>{load.error}</Alert>;
  if (id !== null && !loaded) return <p>Loading pet {id}…</p>;
  const changed = conflict ? (Object.keys(FIELD_LABELS) as (keyof Draft)[]).filter((k) => draftOf(conflict.theirs)[k] !== draftOf(loaded!.pet)[k]) : [];
  return (
    <form
      class="card"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>{title}</h2>
      {conflict && (
        <div role="alert" class="conflict">
          <p>
            <strong>Someone else changed this pet</strong> while you were editing it. Your edit is kept below.
          </p>
          <ul>
            {changed.length === 0 && <li>They changed nothing you can edit here.</li>}
            {changed.map((k) => (
              <li key={k}>
                {FIELD_LABELS[k]}: was “{label(k, draftOf(loaded!.pet)[k], categories)}”, now “{label(k, draftOf(conflict.theirs)[k], categories)}”
              </li>
            ))}
          </ul>
          <button
            type="button"
            onClick={() => {
              setLoaded({ pet: conflict.theirs, etag: conflict.etag });
              setDraft(draftOf(conflict.theirs));
              setConflict(undefined);
            }}
          >
            Reload their version
          </button>
          <button
            type="button"
            class="danger"
            onClick={() => {
              const etag = conflict.etag;
              setLoaded({ pet: conflict.theirs, etag });
              setConflict(undefined);
              void save(etag);
            }}
          >
            Overwrite with my edit
          </button>
        </div>
      )}
      <Field id="pet-name" label="Name" error={problem.fields.name}>
        {(a11y) => <input {...a11y} value={draft.name} onInput={(e) => setDraft({ ...draft, name: e.currentTarget.value })} required maxLength={100} />}
      </Field>
      <Field id="pet-category" label="Category" error={problem.fields.categoryId}>
        {(a11y) => (
          <select {...a11y} value={draft.categoryId} onChange={(e) => setDraft({ ...draft, categoryId: e.currentTarget.value })}>
            {draft.categoryId === '' && <option value="">Choose a category</option>}
            {categories.map((c) => (
              <option key={c.id} value={String(c.id)}>
                {c.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id="pet-status" label="Status" error={problem.fields.status}>
        {(a11y) => (
          <select {...a11y} value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.currentTarget.value as PetStatus })}>
            <StatusOptions />
          </select>
        )}
      </Field>
      <Field id="pet-price" label="Price" error={problem.fields.price} hint={`In ${currency ?? "the store's currency"}, e.g. 19.99; empty for no price`}>
        {(a11y) => <input {...a11y} inputMode="decimal" value={draft.price} onInput={(e) => setDraft({ ...draft, price: e.currentTarget.value })} size={12} />}
      </Field>
      <Field id="pet-tags" label="Tags" error={problem.fields.tags} hint="Up to 10, separated by spaces or commas: lowercase letters, digits and -">
        {(a11y) => <input {...a11y} value={draft.tags} onInput={(e) => setDraft({ ...draft, tags: e.currentTarget.value })} />}
      </Field>
      <Field id="pet-description" label="Description" error={problem.fields.description}>
        {(a11y) => (
          <textarea {...a11y} value={draft.description} onInput={(e) => setDraft({ ...draft, description: e.currentTarget.value })} rows={3} maxLength={2000} />
        )}
      </Field>
      <RecordFields draft={draft} setDraft={setDraft} problem={problem} />
      {id !== null && <PetPhotos petId={id} onChanged={photosChanged} />}
      {id === null && (
        <label class="field">
          Photos (JPEG, PNG or WebP; uploaded with the new pet)
          <input type="file" multiple accept="image/jpeg,image/png,image/webp" onChange={(e) => setFiles([...(e.currentTarget.files ?? [])].slice(0, 10))} />
        </label>
      )}
      {problem.general && <Alert>{problem.general}</Alert>}
      <div class="buttons">
        <button type="submit" class="primary" disabled={saving || conflict !== undefined}>
          Save
        </button>
        <button type="button" onClick={() => onDone(undefined)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * The animal's legal record in the form, labelled as the API describes each member; every error
 * the API names (`breed.secondary`, `source.name`) is shown beside its own input.
 */
function RecordFields({ draft, setDraft, problem }: { draft: Draft; setDraft: (d: Draft) => void; problem: Problem }) {
  const f = problem.fields;
  const set = (member: keyof Draft) => (e: { currentTarget: { value: string } }) => setDraft({ ...draft, [member]: e.currentTarget.value });
  const check = (member: keyof Draft) => (e: { currentTarget: { checked: boolean } }) => setDraft({ ...draft, [member]: e.currentTarget.checked ? 'yes' : '' });
  return (
    <fieldset class="record">
      <legend>Record</legend>
      <Field id="pet-breed" label="Breed" error={f['breed.primary'] ?? (f['breed.secondary'] ? undefined : f.breed)}>
        {(a11y) => <input {...a11y} value={draft.breed} onInput={set('breed')} maxLength={100} />}
      </Field>
      <label class="field">
        <span>
          <input type="checkbox" checked={draft.mixed === 'yes'} onChange={check('mixed')} /> Mixed breed
        </span>
      </label>
      <Field id="pet-second-breed" label="Second breed" error={f['breed.secondary']} hint="Only for a mixed breed">
        {(a11y) => <input {...a11y} value={draft.secondBreed} onInput={set('secondBreed')} maxLength={100} />}
      </Field>
      <Field id="pet-sex" label="Sex" error={f.sex}>
        {(a11y) => (
          <select {...a11y} value={draft.sex} onChange={set('sex')}>
            <option value="">not recorded</option>
            {SEXES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id="pet-neutered" label="Neutered" error={f.neutered}>
        {(a11y) => (
          <select {...a11y} value={draft.neutered} onChange={set('neutered')}>
            <option value="">not recorded</option>
            <option value="yes">yes</option>
            <option value="no">no</option>
          </select>
        )}
      </Field>
      <Field id="pet-colour" label="Colour" error={f.colour} hint="Colour and markings">
        {(a11y) => <input {...a11y} value={draft.colour} onInput={set('colour')} maxLength={100} />}
      </Field>
      <Field id="pet-birth-date" label="Birth date" error={f.birthDate}>
        {(a11y) => <input {...a11y} type="date" value={draft.birthDate} onInput={set('birthDate')} />}
      </Field>
      <Field id="pet-estimated" label="Estimated" error={f.birthDateEstimated} hint="The birth date is an estimate">
        {(a11y) => <input {...a11y} type="checkbox" checked={draft.estimated === 'yes'} onChange={check('estimated')} />}
      </Field>
      <Field id="pet-microchip" label="Microchip" error={f.microchip} hint="15 digits (or an older chip's 10 letters and digits, or 9 digits); spaces are fine">
        {(a11y) => <input {...a11y} value={draft.microchip} onInput={set('microchip')} maxLength={40} inputMode="numeric" />}
      </Field>
      <Field id="pet-acquired" label="Acquired" error={f.acquiredAt} hint="The day the store acquired the animal">
        {(a11y) => <input {...a11y} type="date" value={draft.acquiredAt} onInput={set('acquiredAt')} />}
      </Field>
      <Field id="pet-source" label="Source" error={f['source.kind'] ?? (f['source.name'] || f['source.address'] || f['source.licence'] ? undefined : f.source)}>
        {(a11y) => (
          <select {...a11y} value={draft.sourceKind} onChange={set('sourceKind')}>
            <option value="">not recorded</option>
            {SOURCE_KINDS.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id="pet-source-name" label="Source name" error={f['source.name']} hint="Required unless born in store">
        {(a11y) => <input {...a11y} value={draft.sourceName} onInput={set('sourceName')} maxLength={200} />}
      </Field>
      <Field id="pet-source-address" label="Source address" error={f['source.address']}>
        {(a11y) => <textarea {...a11y} value={draft.sourceAddress} onInput={set('sourceAddress')} rows={2} maxLength={500} />}
      </Field>
      <Field id="pet-source-licence" label="Source licence" error={f['source.licence']} hint="A breeder's or dealer's licence number">
        {(a11y) => <input {...a11y} value={draft.sourceLicence} onInput={set('sourceLicence')} maxLength={100} />}
      </Field>
    </fieldset>
  );
}

function label(k: keyof Draft, value: string, categories: readonly Category[]): string {
  return k === 'categoryId' ? (categories.find((c) => String(c.id) === value)?.name ?? `#${value}`) : value;
}

/**
 * The pet's photos, in the edit form: their thumbnails, one added from a file (uploaded at once:
 * the service checks and converts it) and one removed. The images are served by this origin.
 */
function PetPhotos({ petId, onChanged }: { petId: number; onChanged: () => Promise<void> }) {
  const { session } = useSession();
  const { client } = session;
  const photos = useLoad(() => client.pets.listPhotos(petId), [petId]);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();
  const change = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setFailure(undefined);
    try {
      await work();
      photos.reload();
      await onChanged();
    } catch (err) {
      setFailure(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  const list: readonly Photo[] = photos.data ?? [];
  return (
    <fieldset class="photos">
      <legend>Photos</legend>
      {photos.error && <Alert>{photos.error}</Alert>}
      {list.length === 0 && !photos.loading && <p>No photos yet.</p>}
      <ul class="photo-list">
        {list.map((p) => (
          <li key={p.id} class="photo-item">
            <a href={p.url} target="_blank" rel="noopener">
              <img class="photo-thumb" src={p.thumbnailUrl} alt={`#${p.id}, ${p.width} × ${p.height}`} loading="lazy" />
            </a>
            <button type="button" class="danger" disabled={busy} onClick={() => void change(() => client.pets.deletePhoto(petId, p.id))}>
              Remove photo {p.id}
            </button>
          </li>
        ))}
      </ul>
      <label>
        Add a photo (JPEG, PNG or WebP){' '}
        <input
          type="file"
          accept="image/jpeg,image/png,image/webp"
          disabled={busy || list.length >= 10}
          onChange={(e) => {
            const input = e.currentTarget;
            const file = input.files?.[0];
            if (file) void change(() => client.pets.addPhoto(petId, file)).then(() => (input.value = ''));
          }}
        />
      </label>
      {failure && <Alert>{failure}</Alert>}
    </fieldset>
  );
}
