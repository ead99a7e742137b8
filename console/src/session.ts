// The signed-in key: a client of the public API (every call goes through @petstore/client), what the
// key may do (GET /v1/keys/me), and the one place that notices the key being refused.
import { Petstore, PetstoreError, type CallingKey } from '@petstore/client';
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
  return { client, me, can: (scope) => scopes.has(scope), openEventStream };
}

/** What to tell a person about a failed call: the service's message, or why it could not be reached. */
export function describeError(err: unknown): string {
  if (err instanceof PetstoreError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
