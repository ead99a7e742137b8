// The console's shell: sign in, the navigation, the page the address names (route.ts), sign out.
import type { ComponentType } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { followConsoleLinks, pageHref, useRoute } from './route.ts';
import { LiveFeed } from './live.ts';
import { presetName, SCOPE_WORDS } from './scopes.ts';
import { CategoriesPage } from './pages/categories.tsx';
import { CustomersPage } from './pages/customers.tsx';
import { EventsPage } from './pages/events.tsx';
import { HealthPage } from './pages/health.tsx';
import { InventoryPage } from './pages/inventory.tsx';
import { KeysPage } from './pages/keys.tsx';
import { OrdersPage } from './pages/orders.tsx';
import { PetPage } from './pages/pet.tsx';
import { PetsPage } from './pages/pets.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { describeError, forgetKey, type Session, signIn, storedKey } from './session.ts';
import { Alert, Notice, SessionContext } from './ui.tsx';

const PAGES: readonly { path: string; title: string; page: ComponentType }[] = [
  { path: 'pets', title: 'Pets', page: PetsPage },
  { path: 'health', title: 'Health', page: HealthPage },
  { path: 'categories', title: 'Categories', page: CategoriesPage },
  { path: 'orders', title: 'Orders', page: OrdersPage },
  { path: 'customers', title: 'Customers', page: CustomersPage },
  { path: 'inventory', title: 'Inventory', page: InventoryPage },
  { path: 'keys', title: 'Keys', page: KeysPage },
  { path: 'webhooks', title: 'Webhooks', page: WebhooksPage },
  { path: 'events', title: 'Events', page: EventsPage },
];

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(storedKey() !== null);
  const [signedOut, setSignedOut] = useState<string>();

  const signOut = (why?: string) => {
    forgetKey();
    setSession(null);
    setSignedOut(why);
  };
  const refused = () => signOut('The service refused your API key (revoked or expired), so you were signed out.');

  useEffect(() => {
    const key = storedKey();
    if (key === null) return;
    signIn(key, refused)
      .then(setSession, () => forgetKey())
      .finally(() => setRestoring(false));
  }, []);

  if (restoring) return <p class="loading">Signing in…</p>;
  if (session === null)
    return (
      <SignIn
        notice={signedOut}
        onSignedIn={(s) => {
          setSignedOut(undefined);
          setSession(s);
        }}
        refused={refused}
      />
    );
  return <Console session={session} signOut={() => signOut('You signed out.')} />;
}

function SignIn({ notice, onSignedIn, refused }: { notice?: string | undefined; onSignedIn: (s: Session) => void; refused: () => void }) {
  const [key, setKey] = useState('');
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
  return (
    <SessionContext.Provider value={{ session, live }}>
      <header class="top">
        <span class="brand">Pet Store console</span>
        <span class="who">
          Signed in with <strong>{who}</strong> ({presetName(session.me.scopes)})
          <details class="scopes">
            <summary>What this key may do</summary>
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
          {PAGES.map((p) => (
            <li key={p.path}>
              <a href={pageHref(p.path)} aria-current={p === current && route.kind !== 'pet' ? 'page' : undefined}>
                {p.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main>
        {live.following ? null : <p class="muted">Your key cannot read the event feed (events:read), so pages refresh every 2 s instead of following it.</p>}
        {route.kind === 'pet' ? <PetPage key={`pet-${route.petId}`} petId={route.petId} /> : <Page key={current.path} />}
      </main>
    </SessionContext.Provider>
  );
}
