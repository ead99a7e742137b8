import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/errors.ts';

test('client errors (4xx) capture no stack frames; server errors keep theirs', () => {
  const before = Error.stackTraceLimit;
  const client = new AppError('unauthorized', 'no key');
  assert.doesNotMatch(String(client.stack), /\n\s+at /, 'only the header line, no "at …" frames');
  assert.match(String(client.stack), /no key/);
  const server = new AppError('service_unavailable', 'db down');
  assert.match(String(server.stack), /\n\s+at /);
  assert.equal(Error.stackTraceLimit, before, 'the global limit is restored');
  assert.match(String(new Error('plain').stack), /\n\s+at /, 'other errors still get stacks');
});
