import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.ts';

/** An assert.rejects/throws validator: the error is an AppError with this code (and message). */
export function rejectsWith(code: AppError['code'], message?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof AppError, `expected AppError(${code}), got ${String(err)}`);
    assert.equal(err.code, code);
    if (message) assert.match(err.message, message);
    return true;
  };
}

/** An injected response is the Error body with this status and code (and a message matching). */
export function assertError(res: { statusCode: number; json(): unknown }, status: number, code: string, message?: RegExp): void {
  assert.equal(res.statusCode, status);
  const body = res.json() as { code: string; message: string; status: number };
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  if (message) assert.match(body.message, message);
}
