// Staff (issue 38): the people who sign in, invite one (the one-time link shown once, with Copy),
// change a role, reset a password (owners), deactivate. The API decides who may manage whom.
import { ROLES, type Role, type Staff } from '@petstore/client';
import { useState } from 'preact/hooks';
import { Alert, Field, formatTime, Missing, NO_PROBLEM, PageHeading, type Problem, problemOf, useLoad, useOutcome, useSession } from '../ui.tsx';

const ROLE_WORDS: Readonly<Record<Role, string>> = {
  owner: 'Owner — everything, staff and keys included',
  manager: 'Manager — everything but keys; manages clerks and viewers',
  clerk: 'Clerk — animals, health records and orders',
  viewer: 'Viewer — reads only',
};

export function StaffPage() {
  const { session } = useSession();
  const { client } = session;
  const people = useLoad(() => client.staff.list({ limit: 100 }), []);
  const [invite, setInvite] = useState<{ name: string; email: string; role: Role }>({ name: '', email: '', role: 'clerk' });
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const [link, setLink] = useState<{ who: string; url: string; expiresAt: string } | null>(null);
  const [roles, setRoles] = useState<Record<number, Role>>({});
  const outcome = useOutcome();
  const canAdmin = session.can('staff:admin');

  if (!session.can('staff:read')) return <Missing scope="staff:read" what="see the staff" />;

  const submit = async (e: Event) => {
    e.preventDefault();
    outcome.start();
    setProblem(NO_PROBLEM);
    try {
      const { staff, invitation } = await client.staff.invite(invite);
      setLink({ who: staff.name, url: invitation.url, expiresAt: invitation.expiresAt });
      setInvite({ name: '', email: '', role: 'clerk' });
      people.reload();
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  const act = (what: () => Promise<unknown>, done: string) => outcome.run(what, done, people.reload);
  const reset = async (p: Staff) => {
    outcome.start();
    if (!confirm(`Reset the password of ${p.name}? Their password stops working and their sessions end now.`)) return;
    try {
      const { invitation } = await client.staff.resetPassword(p.id);
      setLink({ who: p.name, url: invitation.url, expiresAt: invitation.expiresAt });
      people.reload();
    } catch (err) {
      outcome.failed(err);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeading>Staff</PageHeading>
      {canAdmin ? (
        <form class="card" aria-label="Invite a person" onSubmit={submit}>
          <Field id="staff-name" label="Name" error={problem.fields.name}>
            {(a11y) => <input {...a11y} value={invite.name} onInput={(e) => setInvite({ ...invite, name: e.currentTarget.value })} required maxLength={100} />}
          </Field>
          <Field id="staff-email" label="Email" error={problem.fields.email}>
            {(a11y) => <input {...a11y} type="email" value={invite.email} onInput={(e) => setInvite({ ...invite, email: e.currentTarget.value })} required />}
          </Field>
          <Field id="staff-role" label="Role" error={problem.fields.role}>
            {(a11y) => (
              <select {...a11y} value={invite.role} onChange={(e) => setInvite({ ...invite, role: e.currentTarget.value as Role })}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {ROLE_WORDS[r]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button type="submit" class="primary">
            Invite
          </button>
          {problem.general && <Alert>{problem.general}</Alert>}
        </form>
      ) : (
        <Missing scope="staff:admin" what="invite people or change their roles" />
      )}
      {link && (
        <div class="card" role="status">
          <p>
            The one-time link for <strong>{link.who}</strong> (works once, until {formatTime(link.expiresAt)}). Hand it over now: it is not shown again.
          </p>
          <label for="invitation-link">Invitation link</label>
          <input id="invitation-link" readOnly value={link.url} />
          <button type="button" onClick={() => void navigator.clipboard?.writeText(link.url)}>
            Copy link
          </button>
        </div>
      )}
      {outcome.view}
      {people.error && <Alert>{people.error}</Alert>}
      <table>
        <caption>Staff</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">State</th>
            <th scope="col">Last sign-in</th>
            {canAdmin && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {(people.data?.data ?? []).map((p) => (
            <tr key={p.id}>
              <th scope="row">{p.name}</th>
              <td>{p.email}</td>
              <td>{p.role}</td>
              <td>{p.state}</td>
              <td>{p.lastSignInAt ? formatTime(p.lastSignInAt) : 'never'}</td>
              {canAdmin && (
                <td>
                  {p.state !== 'deactivated' && (
                    <>
                      <select
                        id={`role-${p.id}`}
                        aria-label={`Role of ${p.name}`}
                        value={roles[p.id] ?? p.role}
                        onChange={(e) => setRoles({ ...roles, [p.id]: e.currentTarget.value as Role })}
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                      <button
                        type="button"
                        onClick={() => act(() => client.staff.update(p.id, { role: roles[p.id] ?? p.role }), `${p.name} is now ${roles[p.id] ?? p.role}.`)}
                      >
                        Change role
                      </button>
                      {session.me.scopes.includes('keys:admin') && (
                        <button type="button" onClick={() => reset(p)}>
                          Reset password
                        </button>
                      )}
                      <button
                        type="button"
                        class="danger"
                        onClick={() =>
                          confirm(`Deactivate ${p.name}? They are signed out at once and can no longer sign in.`) &&
                          act(() => client.staff.deactivate(p.id), `Deactivated ${p.name}.`)
                        }
                      >
                        Deactivate
                      </button>
                    </>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
