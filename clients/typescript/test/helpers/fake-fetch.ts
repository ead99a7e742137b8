// A scripted fetch: answers calls in order from a list and records what was sent.
import assert from 'node:assert/strict';

export interface Sent {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: string | null;
}

export type Answer = Response | Error | ((sent: Sent, init: RequestInit) => Response | Promise<Response>);

export function fakeFetch(answers: Answer[]): { fetch: typeof globalThis.fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const queue = [...answers];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const request = {
      method: init.method ?? 'GET',
      url: new URL(String(input)),
      headers: new Headers(init.headers),
      body: (init.body as string | null | undefined) ?? null,
    };
    sent.push(request);
    const answer = queue.shift();
    assert.ok(answer !== undefined, `unexpected request ${request.method} ${request.url}`);
    if (answer instanceof Error) throw answer;
    return typeof answer === 'function' ? answer(request, init) : answer;
  };
  return { fetch: fetch as typeof globalThis.fetch, sent };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

/** An answer with the service's Error body. */
export function error(status: number, code: string, headers: Record<string, string> = {}): Response {
  return json(status, { code, message: `${code} happened`, status }, { 'x-request-id': `req-${code}`, ...headers });
}

/** What undici's fetch throws when the connection fails. */
export function networkError(): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
}
