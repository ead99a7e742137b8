import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { lazyChildLogger, loggerOptions } from '../../src/logger.ts';

test('a request logger becomes a pino child only when it writes at an enabled level', async (t) => {
  const lines: Record<string, unknown>[] = [];
  const app = Fastify({
    logger: { ...(loggerOptions(loadConfig({ LOG_LEVEL: 'warn' })) as object), stream: { write: (s: string) => lines.push(JSON.parse(s)) } },
  });
  t.after(() => app.close());
  const parent = app.log;
  let children = 0;
  const counting = new Proxy(parent, {
    get: (target, prop, receiver) =>
      prop === 'child'
        ? (...args: Parameters<FastifyBaseLogger['child']>) => {
            children++;
            return target.child(...args);
          }
        : Reflect.get(target, prop, receiver),
  });
  const log = lazyChildLogger.call(app, counting, { reqId: 'r-1' }, {}, undefined as never);
  log.info({ a: 1 }, 'below the level');
  log.debug('below the level too');
  assert.equal(children, 0, 'nothing written, no child made');
  assert.equal(lines.length, 0);
  assert.equal(log.level, 'warn');
  log.warn({ authorization: 'Bearer s3cret' }, 'written');
  log.error('written too');
  assert.equal(children, 1, 'one child, made on the first line and reused');
  assert.deepEqual(
    lines.map((l) => [l.reqId, l.msg, l.authorization]),
    [
      ['r-1', 'written', '[redacted]'],
      ['r-1', 'written too', undefined],
    ],
  );
  // A route with its own level gets a real child at once, as Fastify's own factory would give it.
  const own = lazyChildLogger.call(app, counting, { reqId: 'r-2' }, { level: 'error' }, undefined as never);
  assert.equal(children, 2);
  own.warn('dropped at the route level');
  assert.equal(lines.length, 2);
});
