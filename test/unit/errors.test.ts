import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError, ERROR_CODES, ERROR_STATUS, StorageUnavailableError } from '../../src/errors.ts';
import { toHttpError } from '../../src/http/policies/error-handler.ts';

describe('toHttpError', () => {
  test('AppError keeps its code, status, message and headers', () => {
    const e = toHttpError(new AppError('method_not_allowed', 'no', { allow: 'GET' }));
    assert.deepEqual(e, { status: 405, code: 'method_not_allowed', message: 'no', headers: { allow: 'GET' } });
  });

  test('every code maps to a 4xx or 5xx status', () => {
    for (const code of ERROR_CODES) assert.ok(ERROR_STATUS[code] >= 400 && ERROR_STATUS[code] < 600, code);
  });

  test('unexpected errors become 500 internal_error without internals', () => {
    const e = toHttpError(new Error('SQLITE_CORRUPT at /var/lib/secret/path'));
    assert.equal(e.status, 500);
    assert.equal(e.code, 'internal_error');
    assert.ok(!e.message.includes('SQLITE') && !e.message.includes('/var'));
  });

  test('storage outages become 503 service_unavailable with Retry-After', () => {
    const e = toHttpError(new StorageUnavailableError('connection refused 10.0.0.5'));
    assert.equal(e.status, 503);
    assert.equal(e.code, 'service_unavailable');
    assert.ok(!e.message.includes('10.0.0.5'));
    assert.equal(e.headers['retry-after'], '1');
  });

  test('Fastify body errors map to stable codes', () => {
    const cases: Array<[string, number, string, number]> = [
      ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'unsupported_media_type', 415],
      ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'payload_too_large', 413],
      ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'invalid_json', 400],
      ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 'invalid_json', 400],
      ['FST_ERR_BAD_URL', 400, 'bad_request', 400],
    ];
    for (const [fst, statusCode, code, status] of cases) {
      const err = Object.assign(new Error('x'), { code: fst, statusCode });
      assert.deepEqual([toHttpError(err).code, toHttpError(err).status], [code, status], fst);
    }
  });

  test('validation errors name the part and field', () => {
    const err = Object.assign(new Error('x'), {
      statusCode: 400,
      validationContext: 'querystring',
      validation: [{ keyword: 'maximum', instancePath: '/limit', params: { comparison: '<=', limit: 100 }, schemaPath: '', message: '' }],
    });
    assert.deepEqual(toHttpError(err), {
      status: 400,
      code: 'validation_failed',
      message: 'query parameter "limit" must be <= 100',
      headers: {},
      errors: [{ in: 'query', field: 'limit', rule: 'maximum', message: 'must be at most 100' }],
    });
  });

  test('a JSON SyntaxError is invalid_json', () => {
    assert.equal(toHttpError(new SyntaxError('Unexpected token')).code, 'invalid_json');
  });
});
