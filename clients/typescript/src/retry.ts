// When a failed attempt is repeated, and after how long. Pure: the transport asks, then waits.
import type { PetstoreConnectionError, PetstoreError } from './errors.ts';

export const BASE_DELAY_MS = 500;
export const MAX_DELAY_MS = 8_000;
/** A `Retry-After` longer than this is not waited out: the error is thrown for the caller to decide. */
export const MAX_RETRY_AFTER_SECONDS = 60;

// A connection failure or timeout leaves unknown whether the service acted on the request. Repeating
// it is safe for methods whose repetition changes nothing (RFC 9110 §9.2.2) and for operations that
// take an Idempotency-Key (the repeat is replayed). Other POSTs (createWebhook: its response holds a
// secret, which the service does not store for replays) and PATCH are not repeated after one.
const REPEATABLE_AFTER_CONNECTION_FAILURE = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

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
