import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PetstoreConnectionError, PetstoreError, type PetstoreErrorInit } from '../src/errors.ts';
import { isRetryable, retryDelay } from '../src/retry.ts';

const error = (status: number, code: string) => new PetstoreError({ status, code, message: code, operation: 'x' } as PetstoreErrorInit);
const connection = new PetstoreConnectionError({ message: 'down', timedOut: false, operation: 'x' });

describe('what is retried', () => {
  test('429, 503 and 409 idempotency_key_in_use, whatever the method', () => {
    for (const method of ['GET', 'POST', 'PATCH']) {
      assert.ok(isRetryable(error(429, 'rate_limited'), method));
      assert.ok(isRetryable(error(503, 'service_unavailable'), method));
      assert.ok(isRetryable(error(409, 'idempotency_key_in_use'), method));
    }
  });

  test('nothing else: other 409s, 400, 401, 404, 410, 422, 500, 502, 504', () => {
    for (const [status, code] of [
      [409, 'pet_not_available'],
      [409, 'invalid_transition'],
      [400, 'validation_failed'],
      [401, 'unauthorized'],
      [404, 'not_found'],
      [410, 'gone'],
      [422, 'idempotency_key_reused'],
      [500, 'internal_error'],
      [502, 'unexpected_response'],
      [504, 'unexpected_response'],
    ] as const) {
      assert.equal(isRetryable(error(status, code), 'GET'), false, `${status} ${code}`);
    }
  });

  test('a connection failure or timeout: GET, HEAD and a POST with its Idempotency-Key; never PATCH, DELETE or PUT', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) assert.ok(isRetryable(connection, method), method);
    assert.ok(isRetryable(connection, 'POST', true), 'a POST that takes an Idempotency-Key');
    assert.equal(isRetryable(connection, 'POST'), false, 'any other POST');
    // A repeat of these after a first attempt that worked answers 404 (DELETE) or 412 (If-Match): a wrong answer.
    for (const method of ['PATCH', 'DELETE', 'PUT']) assert.equal(isRetryable(connection, method), false, method);
  });
});

describe('how long to wait', () => {
  test('capped exponential backoff with jitter: between half and all of min(8 s, 0.5 s × 2^retry)', () => {
    assert.equal(
      retryDelay(0, undefined, () => 0),
      250,
    );
    assert.equal(
      retryDelay(0, undefined, () => 1),
      500,
    );
    assert.equal(
      retryDelay(1, undefined, () => 0),
      500,
    );
    assert.equal(
      retryDelay(1, undefined, () => 1),
      1000,
    );
    assert.equal(
      retryDelay(3, undefined, () => 0.5),
      3000,
    );
    assert.equal(
      retryDelay(4, undefined, () => 1),
      8000,
    );
    assert.equal(
      retryDelay(10, undefined, () => 1),
      8000,
    );
    assert.equal(
      retryDelay(10, undefined, () => 0),
      4000,
    );
  });

  test('Retry-After wins, exactly; beyond 60 s there is no retry', () => {
    assert.equal(
      retryDelay(0, 1, () => 1),
      1000,
    );
    assert.equal(retryDelay(5, 0), 0);
    assert.equal(retryDelay(0, 60), 60_000);
    assert.equal(retryDelay(0, 61), undefined);
  });
});
