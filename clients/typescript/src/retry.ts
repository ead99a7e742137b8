// When a failed attempt is repeated, and after how long. Pure: the transport asks, then waits.
import type { PetstoreConnectionError, PetstoreError } from './errors.ts';

export const BASE_DELAY_MS = 500;
export const MAX_DELAY_MS = 8_000;
/** A `Retry-After` longer than this is not waited out: the error is thrown for the caller to decide. */
export const MAX_RETRY_AFTER_SECONDS = 60;

// A connection failure or timeout leaves unknown whether the service acted on the request. The client
// repeats it only when the repeat both changes nothing and answers what the first attempt would have:
// safe methods (RFC 9110 §9.2.1), and operations that take an Idempotency-Key (the repeat is replayed).
// Not DELETE: if the first attempt withdrew the pet, the repeat answers 404 not_found, a wrong answer
// to a delete that worked. Not PATCH, conditional or not: with If-Match, a first attempt that applied
// makes the repeat answer 412 precondition_failed, blaming a concurrent writer for the caller's own
// change. (No PUT exists; it would have the same problem with If-Match.) Other POSTs (createWebhook:
// its response holds a secret, which the service does not store for replays) are not repeated either.
// Those calls fail with PetstoreConnectionError and the caller, who knows what it meant, reads and decides.
const REPEATABLE_AFTER_CONNECTION_FAILURE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether an attempt that failed this way may be repeated: network failures and timeouts (see above),
 * 429, 503, and 409 `idempotency_key_in_use` (the first request with that key is still running).
 * Those answers mean the request was not carried out. Nothing else is retried.
 */
export function isRetryable(failure: PetstoreError | PetstoreConnectionError, method: string, idempotent = false): boolean {
  if (!('status' in failure)) return idempotent || REPEATABLE_AFTER_CONNECTION_FAILURE.has(method);
  return failure.status === 429 || failure.status === 503 || (failure.status === 409 && failure.code === 'idempotency_key_in_use');
}

/**
 * Milliseconds to wait before retry number `retry` (0 for the first): the service's `Retry-After` when it
 * sent one, else capped exponential backoff with equal jitter (between half and all of
 * min(8 s, 0.5 s × 2^retry)). Undefined when `Retry-After` asks for more than 60 s: then no retry.
 */
export function retryDelay(retry: number, retryAfterSeconds: number | undefined, random: () => number = Math.random): number | undefined {
  if (retryAfterSeconds !== undefined) return retryAfterSeconds > MAX_RETRY_AFTER_SECONDS ? undefined : retryAfterSeconds * 1000;
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry);
  return ceiling / 2 + (random() * ceiling) / 2;
}
