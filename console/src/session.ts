// The signed-in key: a client of the public API (every call goes through @petstore/client), what the
// key may do (GET /v1/keys/me), and the one place that notices the key being refused.
import { startAuthentication } from '@simplewebauthn/browser';
import { Petstore, PetstoreError, type CallingKey, type Staff } from '@petstore/client';
import { consoleRoot } from './route.ts';

export type Scope = CallingKey['scopes'][number];

/** sessionStorage, never localStorage, a cookie or the URL: the key is gone when the tab closes. */
const STORED = 'petstore.console.apiKey';

export interface Session {
  readonly client: Petstore;
  readonly me: CallingKey;
  can(scope: Scope): boolean;
  /** Opens GET /v1/events as a Server-Sent Events stream after `after` (live.ts reads it). */
  openEventStream(after: string | undefined, signal: AbortSignal): Promise<Response>;
  /** The person, when signed in with an e-mail address and a password; absent with an API key. */
  readonly person?: Staff;
  /** Ends the session on the service (a person's) or forgets the key (a key's). */
  signOut(): Promise<void>;
}

/** The API beside the console: `/console/` → `/v1` (from an animal's page too), so a proxy's path prefix is kept. */
export function apiBaseUrl(): string {
  return new URL('../v1', consoleRoot()).href;
}

export function storedKey(): string | null {
  return sessionStorage.getItem(STORED);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORED);
}

/**
 * Signs in: the key is checked by reading what it may do. Any later 401 (the key revoked or expired
 * meanwhile) calls `refused`, which signs the console out.
 */
export async function signIn(apiKey: string, refused: () => void): Promise<Session> {
  let signedIn = false;
  const fetchWatching: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 401 && signedIn) refused();
    return response;
  };
  const client = new Petstore({ baseUrl: apiBaseUrl(), apiKey: apiKey.trim(), fetch: fetchWatching, maxRetries: 1 });
  const me = await client.keys.me();
  signedIn = true;
  sessionStorage.setItem(STORED, apiKey.trim());
  const scopes = new Set<string>(me.scopes);
  // An EventSource cannot send Authorization: the stream is read with fetch (a 401 still signs out).
  const openEventStream = (after: string | undefined, signal: AbortSignal) =>
    fetchWatching(`${apiBaseUrl()}/events${after === undefined ? '' : `?after=${after}`}`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${apiKey.trim()}` },
      signal,
    });
  return { client, me, can: (scope) => scopes.has(scope), openEventStream, signOut: async () => forgetKey() };
}

const SAFE = new Set(['GET', 'HEAD']);

/**
 * A person's session: the service keeps it in an HttpOnly cookie the console never sees. The client
 * sends no Authorization (a key would win over the cookie); every request that changes something
 * carries the session's CSRF token (the browser adds Origin). Any 401 (signed out elsewhere, timed
 * out, deactivated) calls `refused`.
 */
function cookieSession(csrfToken: string, refused: () => void, watch: { signedIn: boolean }) {
  const cookieFetch: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    if (!SAFE.has((init?.method ?? 'GET').toUpperCase())) headers.set('x-csrf-token', csrfToken);
    const response = await fetch(input, { ...init, headers, credentials: 'same-origin' });
    if (response.status === 401 && watch.signedIn) refused();
    return response;
  };
  // The client insists on a key; it never leaves this tab (cookieFetch drops the header).
  return { client: new Petstore({ baseUrl: apiBaseUrl(), apiKey: 'session-cookie', fetch: cookieFetch, maxRetries: 1 }), cookieFetch };
}

function personSession(current: { staff: Staff; scopes: readonly Scope[]; csrfToken: string }, refused: () => void): Session {
  const watch = { signedIn: true };
  const { client, cookieFetch } = cookieSession(current.csrfToken, refused, watch);
  const scopes = new Set<string>(current.scopes);
  const me: CallingKey = { id: null, name: current.staff.name, scopes: [...current.scopes], expiresAt: null };
  const openEventStream = (after: string | undefined, signal: AbortSignal) =>
    cookieFetch(`${apiBaseUrl()}/events${after === undefined ? '' : `?after=${after}`}`, { headers: { accept: 'text/event-stream' }, signal });
  return {
    client,
    me,
    person: current.staff,
    can: (scope) => scopes.has(scope),
    openEventStream,
    signOut: async () => {
      watch.signedIn = false;
      await client.sessions.signOut().catch(() => {});
    },
  };
}

/** Signs a person in with their e-mail address and password; the service sets the session cookie. */
export async function signInWithPassword(email: string, password: string, refused: () => void): Promise<Session> {
  const { client } = cookieSession('', refused, { signedIn: false });
  const current = await client.sessions.signIn({ email: email.trim(), password });
  return personSession(current, refused);
}

/** Signs a person in with a passkey alone: the browser offers the passkeys it holds for this site. */
export async function signInWithPasskey(refused: () => void): Promise<Session> {
  const { client } = cookieSession('', refused, { signedIn: false });
  const options = await client.sessions.passkeyOptions();
  const assertion = await startAuthentication({ optionsJSON: options as unknown as Parameters<typeof startAuthentication>[0]['optionsJSON'] });
  return personSession(await client.sessions.signInWithPasskey(assertion as never), refused);
}

/** The person's session still open in this browser (a reload), if any. */
export async function resumeSession(refused: () => void): Promise<Session | null> {
  const { client } = cookieSession('', refused, { signedIn: false });
  try {
    return personSession(await client.sessions.getCurrent(), refused);
  } catch {
    return null;
  }
}

/** Sets the password of the person a one-time link was made for. */
export async function acceptInvitation(token: string, password: string): Promise<Staff> {
  const { client } = cookieSession('', () => {}, { signedIn: false });
  return client.invitations.accept({ token, password });
}

/** What to tell a person about a failed call: the service's message, or why it could not be reached. */
export function describeError(err: unknown): string {
  if (err instanceof PetstoreError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
