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
