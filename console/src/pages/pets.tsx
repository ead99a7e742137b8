// Pets: a paged table with filters, add / edit / withdraw, field-level errors and the 412 flow.
//
// Search (q), tag filter, sorting, price, tags and description come with the catalogue work (issue
// 23): the query below and PetForm's fields are where they go. Photos (issue 23 item 5): PetPhotos,
// in the edit form.
import { type Category, type Pet, type PetStatus, PetstoreError, type Photo } from '@petstore/client';
import { useState } from 'preact/hooks';
import { describeError } from '../session.ts';
import { Alert, Field, Missing, NO_PROBLEM, Notice, PageHeading, Pager, type Problem, problemOf, useLive, useLoad, usePager, useSession } from '../ui.tsx';

export const PET_STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];

/** What the table asks GET /v1/pets for. */
interface PetQuery {
  readonly status: PetStatus | '';
  readonly categoryId: string;
}

export function PetsPage() {
  const { session } = useSession();
  const { client } = session;
  const [query, setQuery] = useState<PetQuery>({ status: '', categoryId: '' });
  const pager = usePager([query.status, query.categoryId]);
  const pets = useLoad(
    () =>
      client.pets.list({
        limit: 20,
        cursor: pager.cursor,
        status: query.status || undefined,
        categoryId: query.categoryId ? Number(query.categoryId) : undefined,
      }),
    [pager.cursor, query.status, query.categoryId],
  );
  const categories = useLoad(() => client.categories.list(), []);
  useLive((e) => e.type.startsWith('pet.') || e.type.startsWith('order.'), pets.reload);
  useLive((e) => e.type.startsWith('category.'), categories.reload);
  const [editing, setEditing] = useState<{ id: number | null } | null>(null);
  const [message, setMessage] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const canWrite = session.can('pets:write');
  const categoryName = (id: number) => categories.data?.find((c) => c.id === id)?.name ?? `#${id}`;

  const withdraw = async (pet: Pet) => {
    if (!confirm(`Withdraw ${pet.name} (pet ${pet.id}) from the store?`)) return;
    setFailure(undefined);
    try {
      await client.pets.delete(pet.id);
      setMessage(`Withdrew ${pet.name}.`);
      pets.reload();
    } catch (err) {
      setFailure(describeError(err));
    }
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeading>Pets</PageHeading>
      {canWrite ? (
        <button type="button" class="primary" onClick={() => setEditing({ id: null })} disabled={editing !== null}>
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
              setMessage(`Saved ${saved.name}.`);
              pets.reload();
            }
          }}
        />
      )}
      {message && <Notice>{message}</Notice>}
      {failure && <Alert>{failure}</Alert>}
      <form class="filters" aria-label="Filter pets" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status{' '}
          <select value={query.status} onChange={(e) => setQuery({ ...query, status: e.currentTarget.value as PetStatus | '' })}>
            <option value="">any</option>
            {PET_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
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
      </form>
      {pets.error && <Alert>{pets.error}</Alert>}
      <table>
        <caption>Pets{pets.loading ? ' (loading…)' : ''}</caption>
        <thead>
          <tr>
            <th scope="col">ID</th>
            <th scope="col">Name</th>
            <th scope="col">Category</th>
            <th scope="col">Status</th>
            {canWrite && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {pets.data?.data.map((pet) => (
            <tr key={pet.id}>
              <td>{pet.id}</td>
              <td>{pet.name}</td>
              <td>{categoryName(pet.categoryId)}</td>
              <td>
                <span class={`badge ${pet.status}`}>{pet.status}</span>
              </td>
              {canWrite && (
                <td class="actions">
                  <button type="button" onClick={() => setEditing({ id: pet.id })} disabled={editing !== null}>
                    Edit
                  </button>
                  <button type="button" class="danger" onClick={() => withdraw(pet)}>
                    Withdraw
                  </button>
                </td>
              )}
            </tr>
          ))}
          {pets.data?.data.length === 0 && (
            <tr>
              <td colSpan={canWrite ? 5 : 4}>No pets{query.status || query.categoryId ? ' match these filters' : ' yet'}.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pager={pager} nextCursor={pets.data?.nextCursor} label="Pets" />
    </section>
  );
}

interface Draft {
  name: string;
  categoryId: string;
  status: PetStatus;
}

const draftOf = (pet: Pet): Draft => ({ name: pet.name, categoryId: String(pet.categoryId), status: pet.status });
const FIELD_LABELS: Record<keyof Draft, string> = { name: 'Name', categoryId: 'Category', status: 'Status' };

/**
 * Add (id null) or edit a pet. An edit sends If-Match with the ETag it was loaded with; a 412 keeps
 * the person's draft, shows what the other change was, and offers to take theirs or to overwrite.
 */
function PetForm({ id, categories, onDone }: { id: number | null; categories: readonly Category[]; onDone: (saved: Pet | undefined) => void }) {
  const { session } = useSession();
  const { client } = session;
  const [draft, setDraft] = useState<Draft>({ name: '', categoryId: categories[0] ? String(categories[0].id) : '', status: 'available' });
  const [loaded, setLoaded] = useState<{ pet: Pet; etag: string } | undefined>();
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const [conflict, setConflict] = useState<{ theirs: Pet; etag: string } | undefined>();
  const [saving, setSaving] = useState(false);
  const load = useLoad(async () => {
    if (id === null) return undefined;
    const { data, etag } = await client.pets.get.withResponse(id);
    setLoaded({ pet: data, etag });
    setDraft(draftOf(data));
    return data;
  }, [id]);

  const body = () => ({ name: draft.name, categoryId: Number(draft.categoryId), status: draft.status });
  // A photo added or removed changes the pet's ETag: take the new one, keeping the person's draft.
  const photosChanged = async () => {
    if (id === null) return;
    const { data, etag } = await client.pets.get.withResponse(id);
    setLoaded({ pet: data, etag });
  };
  const save = async (ifMatch?: string) => {
    setSaving(true);
    setProblem(NO_PROBLEM);
    try {
      if (id === null) onDone(await client.pets.create(body()));
      else onDone(await client.pets.update(id, body(), { ifMatch: ifMatch ?? loaded!.etag }));
    } catch (err) {
      if (err instanceof PetstoreError && err.code === 'precondition_failed' && id !== null) {
        const current = await client.pets.get.withResponse(id);
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
            {PET_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        )}
      </Field>
      {id !== null && <PetPhotos petId={id} onChanged={photosChanged} />}
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
