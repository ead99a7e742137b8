// The console's shell: sign in, the navigation, the page the address names (route.ts), sign out.
import type { ComponentType } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { followConsoleLinks, pageHref, useRoute } from './route.ts';
import { LiveFeed } from './live.ts';
import { presetName, SCOPE_WORDS } from './scopes.ts';
import { CategoriesPage } from './pages/categories.tsx';
import { CustomersPage } from './pages/customers.tsx';
import { ActivityPage } from './pages/activity.tsx';
import { EventsPage } from './pages/events.tsx';
import { HealthPage } from './pages/health.tsx';
import { ImportsPage } from './pages/imports.tsx';
import { InventoryPage } from './pages/inventory.tsx';
import { KeysPage } from './pages/keys.tsx';
import { OrdersPage } from './pages/orders.tsx';
import { PetPage } from './pages/pet.tsx';
import { PetsPage } from './pages/pets.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { AccountPage } from './pages/account.tsx';
import { StaffPage } from './pages/staff.tsx';
import {
  acceptInvitation,
  describeError,
  forgetKey,
  resumeSession,
  type Session,
  signIn,
  signInWithPasskey,
  signInWithPassword,
  storedKey,
} from './session.ts';
import { Alert, Notice, SessionContext } from './ui.tsx';

const PAGES: readonly { path: string; title: string; page: ComponentType }[] = [
  { path: 'pets', title: 'Pets', page: PetsPage },
  { path: 'health', title: 'Health', page: HealthPage },
  { path: 'imports', title: 'Import', page: ImportsPage },
  { path: 'categories', title: 'Categories', page: CategoriesPage },
  { path: 'orders', title: 'Orders', page: OrdersPage },
  { path: 'customers', title: 'Customers', page: CustomersPage },
  { path: 'inventory', title: 'Inventory', page: InventoryPage },
  { path: 'keys', title: 'Keys', page: KeysPage },
  { path: 'webhooks', title: 'Webhooks', page: WebhooksPage },
  { path: 'events', title: 'Events', page: EventsPage },
  { path: 'activity', title: 'Activity', page: ActivityPage },
  { path: 'staff', title: 'Staff', page: StaffPage },
  { path: 'account', title: 'Account', page: AccountPage },
];

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(true);
  const [signedOut, setSignedOut] = useState<string>();
  // How the last person signed in: after a refused key the key form comes back.
  const [withKey, setWithKey] = useState(storedKey() !== null);
  // A one-time link opens the welcome page until the password is set.
  const [welcome, setWelcome] = useState(location.hash.startsWith('#/welcome'));

  const signOut = (why?: string) => {
    forgetKey();
    setSession(null);
    setSignedOut(why);
  };
  const refusedKey = () => signOut('The service refused your API key (revoked or expired), so you were signed out.');
  const refusedSession = () => signOut('Your session has ended (signed out elsewhere, timed out, or ended by an owner). Sign in again.');

  useEffect(() => {
    const key = storedKey();
    // A key in this tab, else a person's session still open in this browser (its cookie).
    const forget = () => {
      forgetKey();
      return null;
    };
    (key === null ? resumeSession(refusedSession) : signIn(key, refusedKey).catch(forget)).then((s) => s && setSession(s)).finally(() => setRestoring(false));
  }, []);

  if (restoring) return <p class="loading">Signing in…</p>;
  const leaveWelcome = () => {
    // The token leaves the address bar (and the browser's history entry) once used.
    history.replaceState(null, '', '#/');
    setWelcome(false);
  };
  if (session === null && welcome) return <Welcome done={leaveWelcome} />;
  if (session === null)
    return (
      <SignIn
        notice={signedOut}
        withKey={withKey}
        setWithKey={setWithKey}
        onSignedIn={(s) => {
          setSignedOut(undefined);
          setSession(s);
        }}
        refusedKey={refusedKey}
        refusedSession={refusedSession}
      />
    );
  return (
    <Console
      session={session}
      signOut={() => {
        void session.signOut();
        signOut('You signed out.');
      }}
    />
  );
}

/** The page a one-time link opens (`#/welcome?token=…`): the person chooses their password. */
function Welcome({ done: toSignIn }: { done: () => void }) {
  const token = new URLSearchParams(location.hash.split('?')[1] ?? '').get('token') ?? '';
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      const person = await acceptInvitation(token, password);
      setDone(person.email);
    } catch (err) {
      setError(describeError(err));
    }
  };
  if (done)
    return (
      <main class="sign-in">
        <h1>Pet Store console</h1>
        <Notice>Your password is set. Sign in with {done}.</Notice>
        <button type="button" class="primary" onClick={toSignIn}>
          Go to sign in
        </button>
      </main>
    );
  return (
    <main class="sign-in">
      <h1>Pet Store console</h1>
      <form onSubmit={submit} aria-label="Choose your password">
        <label for="new-password">Choose a password</label>
        <input
          id="new-password"
          type="password"
          autoComplete="new-password"
          minLength={12}
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          required
          aria-describedby="new-password-hint"
        />
        <small id="new-password-hint" class="hint">
          At least 12 characters; common passwords are refused. This link works once.
        </small>
        {error && <Alert>{error}</Alert>}
        <button type="submit" class="primary">
          Set password
        </button>
      </form>
    </main>
  );
}

function SignIn({
  notice,
  withKey,
  setWithKey,
  onSignedIn,
  refusedKey,
  refusedSession,
}: {
  notice?: string | undefined;
  withKey: boolean;
  setWithKey: (b: boolean) => void;
  onSignedIn: (s: Session) => void;
  refusedKey: () => void;
  refusedSession: () => void;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submitPassword = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await signInWithPassword(email, password, refusedSession));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  const submitPasskey = async () => {
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await signInWithPasskey(refusedSession));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  if (!withKey)
    return (
      <main class="sign-in">
        <h1>Pet Store console</h1>
        {notice && <Notice>{notice}</Notice>}
        <form onSubmit={submitPassword} aria-label="Sign in">
          <label for="email">Email</label>
          <input id="email" type="email" autoComplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
          <label for="password">Password</label>
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            required
            aria-invalid={error ? true : undefined}
          />
          {error && <Alert>{error}</Alert>}
          <button type="submit" class="primary" disabled={busy}>
            Sign in
          </button>
        </form>
        <button type="button" disabled={busy} onClick={submitPasskey}>
          Sign in with a passkey
        </button>
        <button type="button" class="link" onClick={() => setWithKey(true)}>
          Use an API key
        </button>
      </main>
    );
  return <KeySignIn notice={notice} onSignedIn={onSignedIn} refused={refusedKey} back={() => setWithKey(false)} />;
}

function KeySignIn({
  notice,
  onSignedIn,
  refused,
  back,
}: {
  notice?: string | undefined;
  onSignedIn: (s: Session) => void;
  refused: () => void;
  back: () => void;
}) {
  const [key, setKey] = useState('');
  // Chosen with "Use an API key": the field takes the focus, so the keyboard goes on from there.
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await signIn(key, refused));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Pet Store console</h1>
      {notice && <Notice>{notice}</Notice>}
      <form onSubmit={submit} aria-label="Sign in">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          ref={field}
          type="password"
          autoComplete="off"
          spellcheck={false}
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          required
          aria-describedby="api-key-hint"
          aria-invalid={error ? true : undefined}
        />
        <small id="api-key-hint" class="hint">
          Kept in this tab only (sessionStorage) and sent to this service only. <code>npm start</code> shows a new store's first-run key;{' '}
          <code>npx petstore keys create</code> makes more.
        </small>
        {error && <Alert>{error}</Alert>}
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
      <button type="button" class="link" onClick={back}>
        Use email and password
      </button>
    </main>
  );
}

function Console({ session, signOut }: { session: Session; signOut: () => void }) {
  const route = useRoute();
  const live = useMemo(() => new LiveFeed(session.client, session.can('events:read'), session.openEventStream), [session]);
  useEffect(() => {
    live.start();
    return () => live.stop();
  }, [live]);
  // An animal's page belongs to Pets in the navigation; it names itself in the title (pet.tsx).
  const current = route.kind === 'pet' ? PAGES[0]! : (PAGES.find((p) => p.path === route.page) ?? PAGES[0]!);
  useEffect(() => {
    if (route.kind !== 'pet') document.title = `${current.title} · Pet Store console`;
  }, [current, route.kind]);
  useEffect(() => {
    addEventListener('click', followConsoleLinks);
    return () => removeEventListener('click', followConsoleLinks);
  }, []);
  const Page = current.page;
  const who = session.me.name ?? 'a configured key (PETSTORE_API_KEYS)';
  const pages = PAGES.filter((p) => (p.path === 'staff' ? session.can('staff:read') : p.path === 'account' ? session.person !== undefined : true));
  return (
    <SessionContext.Provider value={{ session, live }}>
      <header class="top">
        <span class="brand">Pet Store console</span>
        <span class="who">
          {session.person ? (
            <>
              Signed in as <strong>{session.person.name}</strong> ({session.person.role})
            </>
          ) : (
            <>
              Signed in with <strong>{who}</strong> ({presetName(session.me.scopes)})
            </>
          )}
          <details class="scopes">
            <summary>{session.person ? 'What you may do' : 'What this key may do'}</summary>
            <ul>
              {session.me.scopes.map((s) => (
                <li key={s}>
                  {SCOPE_WORDS[s]} <code>{s}</code>
                </li>
              ))}
            </ul>
          </details>
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Console">
        <ul>
          {pages.map((p) => (
            <li key={p.path}>
              <a href={pageHref(p.path)} aria-current={p === current && route.kind !== 'pet' ? 'page' : undefined}>
                {p.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main>
        {live.following ? null : (
          <p class="muted">This sign-in may not read the event feed (events:read), so pages refresh every 2 s instead of following it.</p>
        )}
        {route.kind === 'pet' ? <PetPage key={`pet-${route.petId}`} petId={route.petId} /> : <Page key={current.path} />}
      </main>
    </SessionContext.Provider>
  );
}
