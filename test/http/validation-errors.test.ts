// Every validation_failed carries `errors`: the field as a client names it, the rule broken (the
// JSON Schema keyword) and the rule in words for people (issue 35 §2), beside the exact message.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sharedTestApp } from '../helpers/app.ts';
import { ROOT } from '../helpers/process.ts';

type Body = { code: string; message: string; status: number; errors?: { in: string; field: string; rule: string; message: string }[] };

describe('validation_failed names the field, the rule and the rule in words', () => {
  const testApp = sharedTestApp();

  test('a body field: tags[0] broke the tag pattern, in words for people; the message stays exact', async (t) => {
    const { app, auth } = await testApp(t);
    const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload: { name: 'Rex', categoryId: 1, tags: ['kids', 'Kids'] } });
    assert.equal(res.statusCode, 400);
    const body = res.json<Body>();
    assert.equal(body.code, 'validation_failed');
    assert.equal(body.message, 'body field "tags.1" must match ^[a-z0-9-]{1,32}$');
    assert.deepEqual(body.errors, [{ in: 'body', field: 'tags[1]', rule: 'pattern', message: 'a tag is lowercase letters, digits and hyphens, up to 32' }]);
  });

  test('a missing field, an unknown field, a nested field, a blank name', async (t) => {
    const { app, auth } = await testApp(t);
    const cases: [object, Body['errors']][] = [
      [{ categoryId: 1 }, [{ in: 'body', field: 'name', rule: 'required', message: 'is required' }]],
      [{ name: 'Rex', categoryId: 1, weight: 12 }, [{ in: 'body', field: 'weight', rule: 'additionalProperties', message: 'is not a field of this form' }]],
      [{ name: 'Rex', categoryId: 1, price: { amount: -1 } }, [{ in: 'body', field: 'price.amount', rule: 'minimum', message: 'must be at least 0' }]],
      [
        { name: ' ', categoryId: 1 },
        [
          {
            in: 'body',
            field: 'name',
            rule: 'pattern',
            message: 'must not be blank (spaces and invisible characters do not count) nor contain the NUL character',
          },
        ],
      ],
      [{ name: 'Rex', categoryId: '1' }, [{ in: 'body', field: 'categoryId', rule: 'type', message: 'must be a whole number' }]],
    ];
    for (const [payload, errors] of cases) {
      const res = await app.inject({ method: 'POST', url: '/v1/pets', headers: auth, payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.deepEqual(res.json<Body>().errors, errors, JSON.stringify(payload));
    }
  });

  test('a query parameter, a repeated one, a header field', async (t) => {
    const { app, auth } = await testApp(t);
    const errorsOf = async (url: string, headers: Record<string, string> = {}) => {
      const res = await app.inject({ method: 'GET', url, headers: { ...auth, ...headers } });
      assert.equal(res.statusCode, 400, url);
      return res.json<Body>().errors;
    };
    assert.deepEqual(await errorsOf('/v1/pets?limit=0'), [{ in: 'query', field: 'limit', rule: 'minimum', message: 'must be at least 1' }]);
    assert.deepEqual(await errorsOf('/v1/pets?status=a&status=b'), [{ in: 'query', field: 'status', rule: 'repeated', message: 'must be given once' }]);
    assert.deepEqual(await errorsOf('/v1/pets?status=lost'), [
      { in: 'query', field: 'status', rule: 'enum', message: 'must be one of: available, pending, sold' },
    ]);
    assert.deepEqual(await errorsOf('/v1/pets/1', { 'if-none-match': 'abc' }), [
      { in: 'header', field: 'If-None-Match', rule: 'pattern', message: 'must be * or the entity tags (ETag values) the service sent, in double quotes' },
    ]);
  });

  test('rules the services check carry them too: ids with a search, ids in another order, another currency', async (t) => {
    const { app, auth } = await testApp(t);
    const q = await app.inject({ method: 'GET', url: '/v1/pets?id=1&q=rex', headers: auth });
    assert.deepEqual(q.json<Body>().errors, [{ in: 'query', field: 'id', rule: 'exclusive', message: 'names the animals itself: leave out the search' }]);
    const sort = await app.inject({ method: 'GET', url: '/v1/pets?id=1&sort=name', headers: auth });
    assert.deepEqual(sort.json<Body>().errors, [{ in: 'query', field: 'sort', rule: 'exclusive', message: 'animals named by ID are listed in ID order only' }]);
    const price = await app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: auth,
      payload: { name: 'Rex', categoryId: 1, price: { amount: 1, currency: 'USD' } },
    });
    assert.equal(price.statusCode, 400);
    assert.deepEqual(price.json<Body>().errors, [{ in: 'body', field: 'price.currency', rule: 'const', message: "prices are in EUR, the shop's currency" }]);
  });

  test('other errors have no errors member', async (t) => {
    const { app, auth } = await testApp(t);
    const res = await app.inject({ method: 'GET', url: '/v1/pets/999999', headers: auth });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(Object.keys(res.json()), ['code', 'message', 'status']);
  });
});

test('every validation_failed in src/ is built by invalid() or the error handler, so each carries errors', () => {
  const src = join(ROOT, 'src');
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const bare = files.filter((f) => f !== 'errors.ts' && /new AppError\(\s*'validation_failed'/.test(readFileSync(join(src, f), 'utf8')));
  assert.deepEqual(bare, []);
});
