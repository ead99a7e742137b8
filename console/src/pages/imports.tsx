// Imports: choose a file (CSV as an export writes it, or JSON Lines), read the validation report —
// each refused row by line and column, in the API's words — apply it, and watch the progress until
// the animals are created and changed (docs/api.md, "Imports").
import type { Result } from '@petstore/client';
import { useEffect, useState } from 'preact/hooks';
import { Alert, Missing, PageHeading, useOutcome, useSession } from '../ui.tsx';

type ImportJob = Result<'getImport'>;

/** How often the page asks for the job while it is applied. */
const POLL_MS = 500;

const typeOf = (file: File): 'text/csv' | 'application/x-ndjson' => (/\.(jsonl|ndjson)$/i.test(file.name) ? 'application/x-ndjson' : 'text/csv');

export function ImportsPage() {
  const { session } = useSession();
  const { client } = session;
  const [file, setFile] = useState<File | null>(null);
  const [createCategories, setCreateCategories] = useState(false);
  const [job, setJob] = useState<ImportJob | null>(null);
  const outcome = useOutcome();
  const canWrite = session.can('pets:write');

  // While the job is applied, its counts are read again until it is done.
  useEffect(() => {
    if (job?.state !== 'applying') return;
    const timer = setTimeout(async () => {
      try {
        const next = await client.imports.get(job.id);
        setJob(next);
        if (next.state === 'done')
          outcome.succeeded(`Import ${next.id} is done: ${next.created} created, ${next.updated} changed, ${next.unchanged} unchanged.`);
      } catch (err) {
        outcome.failed(err);
      }
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [job]);

  const upload = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    outcome.start();
    setJob(null);
    try {
      const read = await client.imports.create({ file, type: typeOf(file), createCategories });
      setJob(read);
      if (read.state === 'failed') outcome.failed(`The file cannot be imported: ${read.failure}`);
    } catch (err) {
      outcome.failed(err);
    }
  };
  const apply = async () => {
    if (!job) return;
    outcome.start();
    try {
      setJob(await client.imports.apply(job.id));
    } catch (err) {
      outcome.failed(err);
    }
  };
  const applied = job ? job.created + job.updated + job.unchanged + job.refused : 0;

  return (
    <section aria-labelledby="page-title">
      <PageHeading>Import animals</PageHeading>
      {canWrite ? (
        <form class="card" aria-label="Upload a stock list" onSubmit={upload}>
          <div class="field">
            <label for="import-file">Stock list (CSV as the Pets export writes it, or JSON Lines)</label>
            <input id="import-file" type="file" accept=".csv,.jsonl,.ndjson,text/csv" required onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
          </div>
          <div class="field">
            <label>
              <input type="checkbox" checked={createCategories} onChange={(e) => setCreateCategories(e.currentTarget.checked)} /> Create the categories the file
              names that do not exist
            </label>
          </div>
          <button type="submit" class="primary" disabled={!file}>
            Check the file
          </button>
        </form>
      ) : (
        <Missing scope="pets:write" what="import animals" />
      )}
      {outcome.view}
      {job && job.state !== 'failed' && (
        <section class="card" aria-label="Import">
          <p role="status">
            {job.rows} rows read: {job.valid} valid, {job.invalid} refused.
            {job.state === 'ready' && ' Nothing is written until you apply it.'}
          </p>
          {job.state === 'ready' && job.valid > 0 && (
            <button type="button" class="primary" onClick={apply}>
              Apply {job.valid} rows
            </button>
          )}
          {(job.state === 'applying' || job.state === 'done') && (
            <label>
              Applied <progress max={job.valid} value={applied} aria-label="Rows applied" /> {applied} of {job.valid}
            </label>
          )}
          {job.report.length > 0 && (
            <table>
              <caption>Rows refused{job.report.length < job.invalid + job.refused ? ' (the first 1,000)' : ''}</caption>
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Column</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {job.report.map((r) => (
                  <tr key={`${r.line}-${r.column}`}>
                    <td>{r.line}</td>
                    <td>{r.column || '—'}</td>
                    <td>{r.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
      {job?.state === 'failed' && <Alert>{job.failure}</Alert>}
    </section>
  );
}
