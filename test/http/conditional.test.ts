// Entity tags and conditional requests (RFC 9110 §8.8.3, §13), on a real listening server, on
// every engine: ETag on every response carrying one pet or order, If-Match on the writes (412),
// If-None-Match on the reads (304), and the races they exist for.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { sharedListening } from '../helpers/raw-http.ts';
import { ENGINES, type Engine } from '../helpers/engines.ts';

const STRONG = /^"[A-Za-z0-9_-]{22}"$/;

interface Server {
  call(method: string, path: string, options?: { headers?: Record<string, string>; body?: unknown; auth?: boolean }): Promise<Response>;
}

/**
 * The real app listening on 127.0.0.1, called with fetch and the test's key: one app per suite,
 * reset between its tests (sharedListening).
 */
function servers(engine: Engine): (t: TestContext) => Promise<Server> {
  const served = sharedListening(engine);
  return async (t) => {
    const { port, auth } = await served(t);
    return {
      call: (method, path, { headers = {}, body, auth: withKey = true } = {}) =>
        fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: { ...(withKey ? auth : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
    };
  };
}

async function created(server: Server, path: string, body: object): Promise<{ json: { id: number }; etag: string }> {
  const res = await server.call('POST', path, { body });
  assert.equal(res.status, 201, await res.clone().text());
  return { json: await res.json(), etag: res.headers.get('etag')! };
}

for (const engine of ENGINES) {
  describe(`${engine}: entity tags`, () => {
    const serve = servers(engine);
    test('createPet, getPet and updatePet carry a strong ETag that changes with the pet, orders included', async (t) => {
      const server = await serve(t);
      const pet = await created(server, '/v1/pets', { name: 'Rex', categoryId: 1 });
      assert.match(pet.etag, STRONG);
      const read = await server.call('GET', `/v1/pets/${pet.json.id}`);
      assert.equal(read.headers.get('etag'), pet.etag, 'the same pet, the same tag');
      const renamed = await server.call('PATCH', `/v1/pets/${pet.json.id}`, { body: { name: 'Rex II' } });
      const renamedTag = renamed.headers.get('etag')!;
      assert.match(renamedTag, STRONG);
      assert.notEqual(renamedTag, pet.etag);
      await server.call('POST', '/v1/store/orders', { body: { petId: pet.json.id } });
      const ordered = await server.call('GET', `/v1/pets/${pet.json.id}`);
      assert.equal((await ordered.json()).status, 'pending');
      assert.notEqual(ordered.headers.get('etag'), renamedTag, 'an order changing the status changes the tag');
      const other = await created(server, '/v1/pets', { name: 'Rex', categoryId: 1 });
      assert.notEqual(other.etag, pet.etag, 'another pet, another tag');
    });

    test("placeOrder, getOrder and updateOrder carry the order's ETag", async (t) => {
      const server = await serve(t);
      const pet = await created(server, '/v1/pets', { name: 'Rex', categoryId: 1 });
      const order = await created(server, '/v1/store/orders', { petId: pet.json.id });
      assert.match(order.etag, STRONG);
      assert.equal((await server.call('GET', `/v1/store/orders/${order.json.id}`)).headers.get('etag'), order.etag);
      const approved = await server.call('PATCH', `/v1/store/orders/${order.json.id}`, { body: { status: 'approved' }, headers: { 'if-match': order.etag } });
      assert.equal(approved.status, 200);
      assert.notEqual(approved.headers.get('etag'), order.etag);
      assert.equal((await server.call('GET', `/v1/store/orders/${order.json.id}`)).headers.get('etag'), approved.headers.get('etag'));
    });

    test('a replayed createPet (Idempotency-Key) carries the ETag of the replayed body', async (t) => {
      const server = await serve(t);
      const headers = { 'idempotency-key': 'etag-replay' };
      const first = await server.call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 }, headers });
      const again = await server.call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 }, headers });
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.headers.get('etag'), first.headers.get('etag'));
      assert.match(String(again.headers.get('etag')), STRONG);
    });
  });

  describe(`${engine}: If-None-Match (conditional reads)`, () => {
    const serve = servers(engine);
    test('getPet: a current tag → 304 with no body, the ETag and the deprecation headers; another tag → 200', async (t) => {
      const server = await serve(t);
      const pet = await created(server, '/v1/pets', { name: 'Rex', categoryId: 1 });
      for (const condition of [pet.etag, `W/${pet.etag}`, `"other", ${pet.etag}`, '*']) {
        const res = await server.call('GET', `/v1/pets/${pet.json.id}`, { headers: { 'if-none-match': condition } });
        assert.equal(res.status, 304, condition);
        assert.equal(await res.text(), '');
        assert.equal(res.headers.get('etag'), pet.etag);
        assert.equal(res.headers.get('deprecation'), '@1767225600');
        assert.equal(res.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT');
        assert.match(String(res.headers.get('link')), /rel="successor-version"/);
        assert.equal(res.headers.get('content-type'), null);
      }
      const head = await server.call('HEAD', `/v1/pets/${pet.json.id}`, { headers: { 'if-none-match': pet.etag } });
      assert.equal(head.status, 304);
      const stale = await server.call('GET', `/v1/pets/${pet.json.id}`, { headers: { 'if-none-match': '"stale"' } });
      assert.equal(stale.status, 200);
      assert.deepEqual(await stale.json(), pet.json);
      await server.call('PATCH', `/v1/pets/${pet.json.id}`, { body: { name: 'changed' } });
      assert.equal((await server.call('GET', `/v1/pets/${pet.json.id}`, { headers: { 'if-none-match': pet.etag } })).status, 200, 'changed since');
    });

    test('getOrder answers If-None-Match the same way', async (t) => {
      const server = await serve(t);
      const pet = await created(server, '/v1/pets', { name: 'Rex', categoryId: 1 });
      const order = await created(server, '/v1/store/orders', { petId: pet.json.id });
      const res = await server.call('GET', `/v1/store/orders/${order.json.id}`, { headers: { 'if-none-match': order.etag } });
      assert.equal(res.status, 304);
      assert.equal(await res.text(), '');
      assert.equal(res.headers.get('etag'), order.etag);
      assert.equal((await server.call('GET', `/v1/store/orders/${order.json.id}`, { headers: { 'if-none-match': '"x"' } })).status, 200);
    });

    test('a malformed If-None-Match → 400 naming the header; a missing pet is 404 whatever the condition', async (t) => {
      const server = await serve(t);
      const pet = await created(server, '/v1/pets', { name: 'Rex', categoryId: 1 });
      for (const condition of ['abc', '"a" "b"', 'W/abc', '"a', 'w/"a"', '{{7*7}}']) {
        const res = await server.call('GET', `/v1/pets/${pet.json.id}`, { headers: { 'if-none-match': condition } });
        assert.equal(res.status, 400, condition);
        assert.deepEqual(await res.json(), {
          code: 'validation_failed',
          message: 'header "If-None-Match" must be * or a comma-separated list of entity tags such as "xyz" or W/"xyz"',
          status: 400,
          errors: [
            { in: 'header', field: 'If-None-Match', rule: 'pattern', message: 'must be * or the entity tags (ETag values) the service sent, in double quotes' },
          ],
        });
      }
      assert.equal((await server.call('GET', '/v1/pets/999', { headers: { 'if-none-match': '*' } })).status, 404);
      // An empty list names no tag: nothing matches it.
      assert.equal((await server.call('GET', `/v1/pets/${pet.json.id}`, { headers: { 'if-none-match': ' , ' } })).status, 200);
      assert.equal((await server.call('PATCH', `/v1/pets/${pet.json.id}`, { body: { name: 'x' }, headers: { 'if-match': ',' } })).status, 412);
    });
  });

  describe(`${engine}: If-Match (conditional writes)`, () => {
    const serve = servers(engine);
    test('updatePet: a stale tag → 412 with the Error body and nothing changed; the current one, * or a list holding it → 200', async (t) => {
      const server = await serve(t);
      const pet = await created(server, '/v1/pets', { name: 'Rex', categoryId: 1 });
      const first = await server.call('PATCH', `/v1/pets/${pet.json.id}`, { body: { name: 'A' }, headers: { 'if-match': pet.etag } });
      assert.equal(first.status, 200);
      const current = first.headers.get('etag')!;
      for (const condition of [pet.etag, `W/${current}`, '"nope"']) {
        const res = await server.call('PATCH', `/v1/pets/${pet.json.id}`, { body: { name: 'B' }, headers: { 'if-match': condition } });
        assert.equal(res.status, 412, condition);
        assert.deepEqual(await res.json(), {
          code: 'precondition_failed',
          message: `If-Match names none of the current entity tags of pet ${pet.json.id}; nothing was changed (GET it for its current ETag)`,
          status: 412,
        });
        assert.equal(res.headers.get('etag'), null);
      }
      assert.equal((await (await server.call('GET', `/v1/pets/${pet.json.id}`)).json()).name, 'A');
      const listed = await server.call('PATCH', `/v1/pets/${pet.json.id}`, { body: { name: 'C' }, headers: { 'if-match': `"old", ${current}` } });
      assert.equal(listed.status, 200);
      assert.equal((await server.call('PATCH', `/v1/pets/${pet.json.id}`, { body: { name: 'D' }, headers: { 'if-match': '*' } })).status, 200);
      assert.equal((await server.call('PATCH', '/v1/pets/999', { body: { name: 'D' }, headers: { 'if-match': '*' } })).status, 404);
      const malformed = await server.call('PATCH', `/v1/pets/${pet.json.id}`, { body: { name: 'E' }, headers: { 'if-match': 'unquoted' } });
      assert.equal(malformed.status, 400);
      assert.match((await malformed.json()).message, /header "If-Match"/);
    });

    test('deletePet and updateOrder: a stale tag → 412 and nothing changes; the current one → done', async (t) => {
      const server = await serve(t);
      const pet = await created(server, '/v1/pets', { name: 'Rex', categoryId: 1 });
      const order = await created(server, '/v1/store/orders', { petId: pet.json.id });
      const staleOrder = await server.call('PATCH', `/v1/store/orders/${order.json.id}`, { body: { status: 'cancelled' }, headers: { 'if-match': '"stale"' } });
      assert.equal(staleOrder.status, 412);
      assert.equal((await (await server.call('GET', `/v1/store/orders/${order.json.id}`)).json()).status, 'placed');
      await server.call('PATCH', `/v1/store/orders/${order.json.id}`, { body: { status: 'cancelled' }, headers: { 'if-match': order.etag } });
      // The cancellation made the pet available again, but its updatedAt moved: a new tag.
      assert.notEqual((await server.call('GET', `/v1/pets/${pet.json.id}`)).headers.get('etag'), pet.etag);
      await server.call('PATCH', `/v1/pets/${pet.json.id}`, { body: { name: 'Max' } });
      const staleDelete = await server.call('DELETE', `/v1/pets/${pet.json.id}`, { headers: { 'if-match': pet.etag } });
      assert.equal(staleDelete.status, 412);
      assert.equal((await server.call('GET', `/v1/pets/${pet.json.id}`)).status, 200);
      const current = (await server.call('GET', `/v1/pets/${pet.json.id}`)).headers.get('etag')!;
      assert.equal((await server.call('DELETE', `/v1/pets/${pet.json.id}`, { headers: { 'if-match': current } })).status, 204);
      assert.equal(
        (await server.call('DELETE', `/v1/pets/${pet.json.id}`, { headers: { 'if-match': '*' } })).status,
        404,
        '* on a withdrawn pet: it does not exist',
      );
    });

    test('20 concurrent PATCHes with the same If-Match: exactly one 200, the rest 412', async (t) => {
      const server = await serve(t);
      const pet = await created(server, '/v1/pets', { name: 'Rex', categoryId: 1 });
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          server.call('PATCH', `/v1/pets/${pet.json.id}`, { body: { name: `writer ${i}` }, headers: { 'if-match': pet.etag } }),
        ),
      );
      const statuses = responses.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, ...Array(19).fill(412)]);
      const winner = await responses.find((r) => r.status === 200)!.json();
      assert.deepEqual(await (await server.call('GET', `/v1/pets/${pet.json.id}`)).json(), winner);
    });

    test('DELETE racing placeOrder on one pet: either the order wins (409) or the withdrawal (400 unknown_pet), never both', async (t) => {
      const server = await serve(t);
      for (let round = 0; round < 6; round++) {
        const pet = await created(server, '/v1/pets', { name: `race ${round}`, categoryId: 1 });
        const del = server.call('DELETE', `/v1/pets/${pet.json.id}`);
        const order = server.call('POST', '/v1/store/orders', { body: { petId: pet.json.id } });
        const [d, o] = await Promise.all([del, order]);
        const outcome = `${d.status}/${o.status}`;
        assert.ok(outcome === '204/400' || outcome === '409/201', `round ${round}: ${outcome}`);
        if (d.status === 204) assert.equal((await o.json()).code, 'unknown_pet');
        else assert.equal((await d.json()).code, 'pet_has_open_order');
      }
    });
  });
}
