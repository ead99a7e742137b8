// Categories: list, add, rename, delete (a category that still has pets cannot be: 409 category_in_use).
import { type Category, PetstoreError } from '@petstore/client';
import { useState } from 'preact/hooks';
import { Alert, Field, Missing, NO_PROBLEM, PageHeading, type Problem, problemOf, useLive, useLoad, useOutcome, useSession } from '../ui.tsx';

export function CategoriesPage() {
  const { session } = useSession();
  const { client } = session;
  const categories = useLoad(() => client.categories.list(), []);
  useLive((e) => e.type.startsWith('category.'), categories.reload);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const outcome = useOutcome();
  const [renaming, setRenaming] = useState<{ id: number; name: string; problem: Problem } | null>(null);
  const canWrite = session.can('categories:write');

  const add = async (e: Event) => {
    e.preventDefault();
    outcome.start();
    setProblem(NO_PROBLEM);
    try {
      const created = await client.categories.create({ name });
      setName('');
      outcome.succeeded(`Added category ${created.name}.`);
      categories.reload();
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  const rename = async (e: Event) => {
    e.preventDefault();
    if (!renaming) return;
    outcome.start();
    try {
      const saved = await client.categories.update(renaming.id, { name: renaming.name });
      setRenaming(null);
      outcome.succeeded(`Renamed category ${saved.id} to ${saved.name}.`);
      categories.reload();
    } catch (err) {
      setRenaming({ ...renaming, problem: problemOf(err) });
    }
  };
  const remove = async (category: Category) => {
    outcome.start();
    if (!confirm(`Delete the category ${category.name}?`)) return;
    try {
      await client.categories.delete(category.id);
      outcome.succeeded(`Deleted category ${category.name}.`);
      categories.reload();
    } catch (err) {
      // What blocks a delete: an animal in the store (any status) in the category; withdrawn animals do not (docs/api.md, category_in_use).
      if (err instanceof PetstoreError && err.code === 'category_in_use')
        outcome.failed(
          `${category.name} cannot be deleted while animals in the store belong to it: move them to another category or withdraw them first. Withdrawn animals do not count.`,
        );
      else outcome.failed(err);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeading>Categories</PageHeading>
      {canWrite ? (
        <form class="card inline" aria-label="Add category" onSubmit={add}>
          <Field id="category-name" label="Category name" error={problem.fields.name}>
            {(a11y) => <input {...a11y} value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={100} />}
          </Field>
          <button type="submit" class="primary">
            Add category
          </button>
          {problem.general && <Alert>{problem.general}</Alert>}
        </form>
      ) : (
        <Missing scope="categories:write" what="add, rename or delete categories" />
      )}
      {outcome.view}
      {categories.error && <Alert>{categories.error}</Alert>}
      <table>
        <caption>Categories</caption>
        <thead>
          <tr>
            <th scope="col">ID</th>
            <th scope="col">Name</th>
            {canWrite && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {categories.data?.map((c) => (
            <tr key={c.id}>
              <td data-label="ID">{c.id}</td>
              <td data-label="Name">
                {renaming?.id === c.id ? (
                  <form class="inline" aria-label={`Rename ${c.name}`} onSubmit={rename}>
                    <Field id={`rename-${c.id}`} label="New name" error={renaming.problem.fields.name ?? renaming.problem.general}>
                      {(a11y) => <input {...a11y} value={renaming.name} onInput={(e) => setRenaming({ ...renaming, name: e.currentTarget.value })} required />}
                    </Field>
                    <button type="submit">Save</button>
                    <button type="button" onClick={() => setRenaming(null)}>
                      Cancel
                    </button>
                  </form>
                ) : (
                  c.name
                )}
              </td>
              {canWrite && (
                <td data-label="Actions" class="actions">
                  <button
                    type="button"
                    onClick={() => {
                      outcome.start();
                      setRenaming({ id: c.id, name: c.name, problem: NO_PROBLEM });
                    }}
                  >
                    Rename
                  </button>
                  <button type="button" class="danger" onClick={() => remove(c)}>
                    Delete
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
