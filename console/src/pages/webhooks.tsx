// Webhooks: endpoints, subscribing one, rotating its secret, its delivery log and "Retry". Needs webhooks:admin.
import { type Delivery, EVENT_TYPES, type EventType, type Webhook } from '@petstore/client';
import { useState } from 'preact/hooks';
import {
  Alert,
  Field,
  Missing,
  NO_PROBLEM,
  PageHeading,
  Pager,
  type Problem,
  formatTime,
  problemOf,
  useLive,
  useLoad,
  usePager,
  useSession,
  useOutcome,
} from '../ui.tsx';

export function WebhooksPage() {
  const { session } = useSession();
  if (!session.can('webhooks:admin'))
    return (
      <section aria-labelledby="page-title">
        <PageHeading>Webhooks</PageHeading>
        <Missing scope="webhooks:admin" what="see or change webhook endpoints" />
      </section>
    );
  return <WebhooksAdmin />;
}

function WebhooksAdmin() {
  const { session } = useSession();
  const { client } = session;
  const pager = usePager([]);
  const endpoints = useLoad(() => client.webhookEndpoints.list({ limit: 20, cursor: pager.cursor }), [pager.cursor]);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState<EventType[]>([]);
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const [secret, setSecret] = useState<{ id: number; secret: string; rotated: boolean } | undefined>();
  const [selected, setSelected] = useState<number | null>(null);
  const outcome = useOutcome();

  const subscribe = async (e: Event) => {
    e.preventDefault();
    setProblem(NO_PROBLEM);
    try {
      const created = await client.webhookEndpoints.create({ url, ...(types.length ? { events: types } : {}), ...(description ? { description } : {}) });
      setSecret({ id: created.id, secret: created.secret, rotated: false });
      setUrl('');
      setDescription('');
      setTypes([]);
      endpoints.reload();
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  const rotate = async (endpoint: Webhook) => {
    if (!confirm(`Rotate the signing secret of endpoint ${endpoint.id}? Deliveries are signed with the new one from now on.`)) return;
    outcome.start();
    try {
      const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
      setSecret({ id: rotated.id, secret: rotated.secret, rotated: true });
    } catch (err) {
      outcome.failed(err);
    }
  };
  const toggle = async (endpoint: Webhook) => {
    outcome.start();
    try {
      await client.webhookEndpoints.update(endpoint.id, { enabled: !endpoint.enabled });
      outcome.succeeded(`Endpoint ${endpoint.id} ${endpoint.enabled ? 'disabled' : 'enabled'}.`);
      endpoints.reload();
    } catch (err) {
      outcome.failed(err);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeading>Webhooks</PageHeading>
      <form class="card" aria-label="Subscribe endpoint" onSubmit={subscribe}>
        <h2>Subscribe an endpoint</h2>
        <Field id="webhook-url" label="URL" error={problem.fields.url}>
          {(a11y) => <input {...a11y} type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} required />}
        </Field>
        <fieldset>
          <legend>Events (none checked: every type, new ones included)</legend>
          {EVENT_TYPES.map((t) => (
            <label key={t} class="check">
              <input
                type="checkbox"
                checked={types.includes(t)}
                onChange={(e) => setTypes(e.currentTarget.checked ? [...types, t] : types.filter((x) => x !== t))}
              />{' '}
              {t}
            </label>
          ))}
          {problem.fields.events && <p class="field-error">{problem.fields.events}</p>}
        </fieldset>
        <Field id="webhook-description" label="Description (optional)" error={problem.fields.description}>
          {(a11y) => <input {...a11y} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}
        </Field>
        {problem.general && <Alert>{problem.general}</Alert>}
        <button type="submit" class="primary">
          Subscribe
        </button>
      </form>
      {secret && (
        <section class="card secret" aria-label="Signing secret">
          <p role="alert">
            <strong>
              Copy the {secret.rotated ? 'new ' : ''}signing secret of endpoint {secret.id} now:
            </strong>{' '}
            it is shown only this once.
          </p>
          <label for="webhook-secret">Signing secret of endpoint {secret.id}</label>
          <input id="webhook-secret" readOnly value={secret.secret} onFocus={(e) => e.currentTarget.select()} />
          <button type="button" onClick={() => setSecret(undefined)}>
            Done
          </button>
        </section>
      )}
      {outcome.view}
      {endpoints.error && <Alert>{endpoints.error}</Alert>}
      <table>
        <caption>Endpoints</caption>
        <thead>
          <tr>
            <th scope="col">ID</th>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.data?.data.map((w) => (
            <tr key={w.id}>
              <td data-label="ID">{w.id}</td>
              <td data-label="URL">
                <code>{w.url}</code>
                {w.description && <div class="muted">{w.description}</div>}
              </td>
              <td data-label="Events">{w.events === null ? 'every type' : w.events.join(', ')}</td>
              <td data-label="State">{w.enabled ? 'enabled' : 'disabled'}</td>
              <td data-label="Actions" class="actions">
                <button type="button" aria-pressed={selected === w.id} onClick={() => setSelected(selected === w.id ? null : w.id)}>
                  Deliveries
                </button>
                <button type="button" onClick={() => rotate(w)}>
                  Rotate secret
                </button>
                <button type="button" onClick={() => toggle(w)}>
                  {w.enabled ? 'Disable' : 'Enable'}
                </button>
              </td>
            </tr>
          ))}
          {endpoints.data?.data.length === 0 && (
            <tr>
              <td colSpan={5}>No endpoints yet.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pager={pager} nextCursor={endpoints.data?.nextCursor} label="Endpoints" />
      {selected !== null && <DeliveryLog webhookId={selected} />}
    </section>
  );
}

/** One endpoint's delivery log, refreshed while it is open (deliveries are not events of the feed). */
function DeliveryLog({ webhookId }: { webhookId: number }) {
  const { session } = useSession();
  const { client } = session;
  const pager = usePager([webhookId]);
  const log = useLoad(() => client.webhookEndpoints.listDeliveries(webhookId, { limit: 20, cursor: pager.cursor }), [webhookId, pager.cursor]);
  const outcome = useOutcome();
  // Attempts change without an event of the feed: the open log is read again on every poll.
  useLive('every poll', log.reload);

  const retry = async (d: Delivery) => {
    outcome.start();
    try {
      await client.webhookEndpoints.retryDelivery(webhookId, d.id);
      outcome.succeeded(`Retrying ${d.eventId ?? `delivery ${d.id}`}.`);
      log.reload();
    } catch (err) {
      outcome.failed(err);
    }
  };

  return (
    <section class="card" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries of endpoint {webhookId}</h2>
      {outcome.view}
      {log.error && <Alert>{log.error}</Alert>}
      <table>
        <caption>Delivery log of endpoint {webhookId}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">ID</th>
            <th scope="col">Event</th>
            <th scope="col">Attempt</th>
            <th scope="col">Status</th>
            <th scope="col">Response</th>
            <th scope="col">When</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {log.data?.data.map((d) => (
            <tr key={d.id}>
              <td data-label="ID">{d.id}</td>
              <td data-label="Event">{d.type === 'attempt' ? <code>{d.eventId}</code> : d.type}</td>
              <td data-label="Attempt">{d.attempt ?? '—'}</td>
              <td data-label="Status">
                <span class={`badge ${d.status}`}>{d.status}</span>
              </td>
              <td data-label="Response">
                {[
                  d.httpStatus !== null ? `HTTP ${d.httpStatus}` : '',
                  d.error !== `HTTP ${d.httpStatus}` ? (d.error ?? '') : '',
                  d.durationMs !== null ? `(${d.durationMs} ms)` : '',
                ]
                  .filter(Boolean)
                  .join(' ')}
              </td>
              <td data-label="When">
                {d.status === 'pending' && d.nextAttemptAt ? `due ${formatTime(d.nextAttemptAt)}` : formatTime(d.attemptedAt ?? d.createdAt)}
              </td>
              <td data-label="Actions" class="actions">
                {d.type === 'attempt' && d.status === 'failed' && (
                  <button type="button" onClick={() => retry(d)}>
                    Retry
                  </button>
                )}
              </td>
            </tr>
          ))}
          {log.data?.data.length === 0 && (
            <tr>
              <td colSpan={7}>Nothing delivered yet.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pager={pager} nextCursor={log.data?.nextCursor} label="Deliveries" />
    </section>
  );
}
