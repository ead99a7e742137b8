// Account (issue 38): the signed-in person changes their password and sees their sessions, ending
// the others, and adds or removes passkeys. Only for a person signed in; an API key has no account.
import { startRegistration } from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import { Alert, Field, formatTime, NO_PROBLEM, PageHeading, type Problem, problemOf, useLoad, useOutcome, useSession } from '../ui.tsx';

export function AccountPage() {
  const { session } = useSession();
  const { client } = session;
  const sessions = useLoad(() => (session.person ? client.sessions.list() : Promise.resolve([])), []);
  const passkeys = useLoad(() => (session.person ? client.account.listPasskeys() : Promise.resolve([])), []);
  const [change, setChange] = useState({ currentPassword: '', newPassword: '' });
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const outcome = useOutcome();

  if (!session.person)
    return (
      <section aria-labelledby="page-title">
        <PageHeading>Account</PageHeading>
        <p>You signed in with an API key, which has no password or sessions. People sign in with their e-mail address.</p>
      </section>
    );

  const submit = async (e: Event) => {
    e.preventDefault();
    outcome.start();
    setProblem(NO_PROBLEM);
    try {
      await client.account.changePassword(change);
      setChange({ currentPassword: '', newPassword: '' });
      outcome.succeeded('Your password was changed; your other sessions ended.');
      sessions.reload();
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  const act = (what: () => Promise<unknown>, done: string) => outcome.run(what, done, sessions.reload);
  const addPasskey = async () => {
    const options = await client.account.passkeyOptions();
    const registration = await startRegistration({ optionsJSON: options as unknown as Parameters<typeof startRegistration>[0]['optionsJSON'] });
    await client.account.addPasskey(registration as never);
  };
  const passkeyAct = (what: () => Promise<unknown>, done: string) => outcome.run(what, done, passkeys.reload);

  return (
    <section aria-labelledby="page-title">
      <PageHeading>Account</PageHeading>
      <p>
        {session.person.name} &lt;{session.person.email}&gt;, {session.person.role}
      </p>
      <form class="card" aria-label="Change password" onSubmit={submit}>
        <Field id="current-password" label="Current password" error={problem.fields.currentPassword}>
          {(a11y) => (
            <input
              {...a11y}
              type="password"
              autoComplete="current-password"
              value={change.currentPassword}
              onInput={(e) => setChange({ ...change, currentPassword: e.currentTarget.value })}
              required
            />
          )}
        </Field>
        <Field id="new-password" label="New password" error={problem.fields.newPassword} hint="At least 12 characters; common passwords are refused.">
          {(a11y) => (
            <input
              {...a11y}
              type="password"
              autoComplete="new-password"
              value={change.newPassword}
              onInput={(e) => setChange({ ...change, newPassword: e.currentTarget.value })}
              required
              minLength={12}
            />
          )}
        </Field>
        <button type="submit" class="primary">
          Change password
        </button>
        {problem.general && <Alert>{problem.general}</Alert>}
      </form>
      {outcome.view}
      {passkeys.error && <Alert>{passkeys.error}</Alert>}
      <table>
        <caption>Your passkeys</caption>
        <thead>
          <tr>
            <th scope="col">Added</th>
            <th scope="col">Last used</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(passkeys.data ?? []).map((p) => (
            <tr key={p.id}>
              <td>{formatTime(p.createdAt)}</td>
              <td>{p.lastUsedAt === null ? 'Never' : formatTime(p.lastUsedAt)}</td>
              <td>
                <button type="button" onClick={() => passkeyAct(() => client.account.removePasskey(p.id), 'The passkey was removed.')}>
                  Remove passkey
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={() => passkeyAct(addPasskey, 'The passkey was added: you can sign in with it.')}>
        Add a passkey
      </button>
      {sessions.error && <Alert>{sessions.error}</Alert>}
      <table>
        <caption>Your sessions</caption>
        <thead>
          <tr>
            <th scope="col">Signed in</th>
            <th scope="col">Last active</th>
            <th scope="col">Ends</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(sessions.data ?? []).map((s) => (
            <tr key={s.id}>
              <td>{formatTime(s.createdAt)}</td>
              <td>{formatTime(s.lastSeenAt)}</td>
              <td>{formatTime(s.expiresAt)}</td>
              <td>
                {s.current ? (
                  'This browser'
                ) : (
                  <button type="button" onClick={() => act(() => client.sessions.end(s.id), 'That session ended.')}>
                    End session
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={() => act(() => client.sessions.endOthers(), 'Your other sessions ended.')}>
        Sign out everywhere else
      </button>
    </section>
  );
}
