// Categories: list, add, rename, delete (a category that still has pets cannot be: 409 category_in_use).
import { type Category, PetstoreError } from '@petstore/client';
import { useState } from 'preact/hooks';
import { describeError } from '../session.ts';
import { Alert, Field, Missing, NO_PROBLEM, Notice, PageHeading, type Problem, problemOf, useLive, useLoad, useSession } from '../ui.tsx';

export function CategoriesPage() {
  const { session } = useSession();
  const { client } = session;
  const categories = useLoad(() => client.categories.list(), []);
  useLive((e) => e.type.startsWith('category.'), categories.reload);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const [message, setMessage] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [renaming, setRenaming] = useState<{ id: number; name: string; problem: Problem } | null>(null);
  const canWrite = session.can('categories:write');

  const add = async (e: Event) => {
    e.preventDefault();
    setProblem(NO_PROBLEM);
    try {
      const created = await client.categories.create({ name });
      setName('');
      setMessage(`Added category ${created.name}.`);
      categories.reload();
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  const rename = async (e: Event) => {
    e.preventDefault();
    if (!renaming) return;
    try {
      const saved = await client.categories.update(renaming.id, { name: renaming.name });
      setRenaming(null);
      setMessage(`Renamed category ${saved.id} to ${saved.name}.`);
      categories.reload();
    } catch (err) {
      setRenaming({ ...renaming, problem: problemOf(err) });
    }
  };
  const remove = async (category: Category) => {
    if (!confirm(`Delete the category ${category.name}?`)) return;
    setFailure(undefined);
    try {
      await client.categories.delete(category.id);
      setMessage(`Deleted category ${category.name}.`);
      categories.reload();
    } catch (err) {
      if (err instanceof PetstoreError && err.code === 'category_in_use')
        setFailure(
          `${category.name} still has pets (withdrawn ones count until they are purged): move them to another category or withdraw them first. ${err.message}`,
        );
      else setFailure(describeError(err));
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
      {message && <Notice>{message}</Notice>}
      {failure && <Alert>{failure}</Alert>}
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
              <td>{c.id}</td>
              <td>
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
                <td class="actions">
                  <button type="button" onClick={() => setRenaming({ id: c.id, name: c.name, problem: NO_PROBLEM })}>
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
