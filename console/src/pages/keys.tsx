// Keys: issue (the secret shown once), list, revoke. Needs keys:admin.
// Keys form a tree (docs/api.md, "the key tree"): each records its maker, and revoking one ends the
// keys it made; a key lists and revokes only itself and its descendants (an owner key: every key).
import { type components, SCOPES } from '@petstore/client';
import { useState } from 'preact/hooks';
import { PRESETS, presetName, SCOPE_WORDS } from '../scopes.ts';
import type { Scope } from '../session.ts';
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
  useLoad,
  usePager,
  useSession,
  useOutcome,
} from '../ui.tsx';

type ApiKey = components['schemas']['ApiKey'];
/** How many of the keys a revocation ends the confirmation names (one page of listKeyDescendants). */
const DESCENDANTS_SHOWN = 10;

export function KeysPage() {
  const { session } = useSession();
  if (!session.can('keys:admin')) {
    return (
      <section aria-labelledby="page-title">
        <PageHeading>Keys</PageHeading>
        <Missing scope="keys:admin" what="see, issue or revoke keys" />
      </section>
    );
  }
  return <KeysAdmin />;
}

function KeysAdmin() {
  const { session } = useSession();
  const { client } = session;
  const pager = usePager([]);
  const keys = useLoad(() => client.keys.list({ limit: 20, cursor: pager.cursor }), [pager.cursor]);
  const [name, setName] = useState('');
  // Least privilege: a new key starts with no scope; the person ticks what it needs, or takes a preset.
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [expires, setExpires] = useState('');
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const [issued, setIssued] = useState<{ name: string; secret: string } | undefined>();
  const [copied, setCopied] = useState(false);
  const outcome = useOutcome();

  const issue = async (e: Event) => {
    e.preventDefault();
    setProblem(NO_PROBLEM);
    setCopied(false);
    try {
      const created = await client.keys.create({ name, scopes, ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}) });
      setIssued({ name: created.name, secret: created.key });
      setName('');
      keys.reload();
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  const revoke = async (key: ApiKey) => {
    const self = key.id === session.me.id ? ' This is the key you are signed in with: the console will sign out.' : '';
    // Name the keys the tree will end (the API's first page of them); if that read fails, state the rule.
    let tree = ' Every key it made, directly or through them, is revoked with it.';
    try {
      const below = await client.keys.listDescendants(key.id, { limit: DESCENDANTS_SHOWN });
      const named = below.data.map((k) => `${k.name} (${k.prefix}…)`).join(', ');
      if (below.data.length === 0) tree = ' No other key ends with it.';
      else
        tree = ` It also ends the keys it made, directly or through them: ${named}${below.nextCursor ? ` — the first ${below.data.length}; more follow` : ''}.`;
    } catch {
      // The rule alone, as before.
    }
    if (!confirm(`Revoke the key ${key.name} (${key.prefix}…)? It is refused from its next request on.${tree}${self}`)) return;
    outcome.start();
    try {
      await client.keys.revoke(key.id);
      outcome.succeeded(`Revoked ${key.name}.`);
      keys.reload();
    } catch (err) {
      outcome.failed(err);
    }
  };
  const copy = async () => {
    if (!issued) return;
    await navigator.clipboard.writeText(issued.secret).then(
      () => setCopied(true),
      () => outcome.failed('The browser refused the clipboard: select the secret and copy it by hand.'),
    );
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeading>Keys</PageHeading>
      <form class="card" aria-label="Issue key" onSubmit={issue}>
        <h2>Issue a key</h2>
        <Field id="key-name" label="Key name" error={problem.fields.name}>
          {(a11y) => <input {...a11y} value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={100} />}
        </Field>
        <fieldset class="presets">
          <legend>Presets</legend>
          <ul>
            {PRESETS.map((p) => {
              const grantable = p.scopes.every((s) => session.can(s));
              return (
                <li key={p.name}>
                  <button
                    type="button"
                    disabled={!grantable}
                    aria-describedby={`preset-${p.name.replace(/\W+/g, '-')}`}
                    onClick={() => setScopes([...p.scopes])}
                  >
                    {p.name}
                  </button>{' '}
                  <small id={`preset-${p.name.replace(/\W+/g, '-')}`} class="hint">
                    {p.scopes.map((s) => SCOPE_WORDS[s]).join(' · ')}
                    {!grantable && ' (your key cannot grant all of these)'}
                  </small>
                </li>
              );
            })}
          </ul>
        </fieldset>
        <fieldset class="scopes" aria-describedby={problem.fields.scopes ? 'key-scopes-error' : 'key-scopes-hint'}>
          <legend>Scopes</legend>
          <small id="key-scopes-hint" class="hint">
            None is ticked: give the key only what its holder needs.
          </small>
          {SCOPES.map((s) => (
            <label key={s} class="check">
              <input
                type="checkbox"
                checked={scopes.includes(s)}
                disabled={!session.can(s)}
                onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
              />{' '}
              {SCOPE_WORDS[s]} <code>{s}</code>
              {!session.can(s) && <small> (your key lacks it, so cannot grant it)</small>}
            </label>
          ))}
          {problem.fields.scopes && (
            <p id="key-scopes-error" class="field-error">
              {problem.fields.scopes}
            </p>
          )}
        </fieldset>
        <Field id="key-expires" label="Expires (optional)" error={problem.fields.expiresAt} hint="Your local time; empty: never">
          {(a11y) => <input {...a11y} type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />}
        </Field>
        {problem.general && <Alert>{problem.general}</Alert>}
        <button type="submit" class="primary" disabled={scopes.length === 0}>
          Issue key
        </button>
      </form>
      {issued && (
        <section class="card secret" aria-label="New key secret">
          <p role="alert">
            <strong>Copy the key {issued.name} now:</strong> this is the only time it is shown. The service keeps only its hash.
          </p>
          <label for="issued-secret">Secret of {issued.name}</label>
          <input id="issued-secret" readOnly value={issued.secret} onFocus={(e) => e.currentTarget.select()} />
          <button type="button" onClick={copy}>
            Copy
          </button>
          {copied && <span role="status"> Copied.</span>}
          <button type="button" onClick={() => setIssued(undefined)}>
            Done
          </button>
        </section>
      )}
      {outcome.view}
      {keys.error && <Alert>{keys.error}</Alert>}
      <table>
        <caption>Keys</caption>
        <thead>
          <tr>
            <th scope="col">ID</th>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Made by</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.data.map((key) => {
            const expired = key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now();
            const state = key.revokedAt ? `revoked ${formatTime(key.revokedAt)}` : expired ? 'expired' : 'active';
            return (
              <tr key={key.id}>
                <td data-label="ID">{key.id}</td>
                <td data-label="Name">
                  {key.name}
                  {key.id === session.me.id && <small> (this key)</small>}
                </td>
                <td data-label="Prefix">
                  <code>{key.prefix}</code>
                </td>
                <td data-label="Made by">{key.owner ? 'owner key' : key.parentId === null ? 'operator' : `key ${key.parentId}`}</td>
                <td data-label="Scopes">
                  {presetName(key.scopes)}: {key.scopes.join(', ')}
                </td>
                <td data-label="Created">{formatTime(key.createdAt)}</td>
                <td data-label="Expires">{key.expiresAt ? formatTime(key.expiresAt) : 'never'}</td>
                <td data-label="State">{state}</td>
                <td data-label="Actions" class="actions">
                  {!key.revokedAt && (
                    <button type="button" class="danger" onClick={() => revoke(key)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <Pager pager={pager} nextCursor={keys.data?.nextCursor} label="Keys" />
    </section>
  );
}
