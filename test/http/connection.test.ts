import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { LINGER_MS } from '../../src/http/edge/graceful-close.ts';
import { exchange, listening, sharedListening } from '../helpers/raw-http.ts';

const MiB = 1024 * 1024;

interface Response {
  readonly status: number;
  readonly headers: Map<string, string>;
  readonly body: string;
}

/** Splits what the server sent into responses; HEAD responses (by position in `heads`) have no body. */
function responses(data: string, heads: boolean[] = []): Response[] {
  const out: Response[] = [];
  let rest = data;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    assert.ok(end > 0, `a complete head in ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
    assert.ok(status, `a status line: ${statusLine}`);
    const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = heads[out.length] ? 0 : Number(headers.get('content-length') ?? 0);
    out.push({ status: Number(status[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

function assertErrorResponse(r: Response, status: number, code: string, what: string): void {
  assert.equal(r.status, status, `${what}: status`);
  assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8', `${what}: content type`);
  assert.ok(r.headers.get('x-request-id'), `${what}: X-Request-Id`);
  const body = JSON.parse(r.body);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'], what);
  assert.equal(body.code, code, what);
  assert.equal(body.status, status, what);
  assert.equal(Buffer.byteLength(r.body), Number(r.headers.get('content-length')), `${what}: Content-Length`);
}

const HOST = 'Host: api.example\r\n';

describe('a message node:http cannot parse is answered in the Error shape, then the connection is closed', () => {
  // One listening app for the tests that need the default one, reset between them (test/helpers/app.ts).
  const served = sharedListening();
  const corpus: [what: string, bytes: string, status: number, code: string][] = [
    ['a garbage request line', '\x01\x02 junk\r\n\r\n', 400, 'bad_request'],
    [
      'Content-Length with Transfer-Encoding',
      `POST /v1/pets HTTP/1.1\r\n${HOST}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      400,
      'bad_request',
    ],
    ['a bare LF', 'GET /v1/pets HTTP/1.1\nHost: api.example\n\n', 400, 'bad_request'],
    ['a NUL in a header value', `GET /v1/pets HTTP/1.1\r\n${HOST}X-Note: a\0b\r\n\r\n`, 400, 'bad_request'],
    ['a space in a header name', `GET /v1/pets HTTP/1.1\r\n${HOST}Bad Header: x\r\n\r\n`, 400, 'bad_request'],
    ['an unsupported major version', `GET /v1/pets HTTP/9.9\r\n${HOST}\r\n`, 505, 'http_version_not_supported'],
    ['a malformed version', `GET /v1/pets HTTP/1.1x\r\n${HOST}\r\n`, 400, 'bad_request'],
    ['a method llhttp does not know', `FOO /v1/pets HTTP/1.1\r\n${HOST}\r\n`, 501, 'not_implemented'],
    ['a lowercase method', `get /v1/pets HTTP/1.1\r\n${HOST}\r\n`, 501, 'not_implemented'],
    [
      'header fields over 16 KiB',
      `GET /v1/categories HTTP/1.1\r\n${HOST}Authorization: Bearer ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'request_header_fields_too_large',
    ],
  ];
  for (const [what, bytes, status, code] of corpus) {
    test(`${what} → ${status} ${code}`, async (t) => {
      const { port } = await served(t);
      const { data, closedByServer } = await exchange(port, bytes);
      const [r, ...more] = responses(data);
      assertErrorResponse(r, status, code, what);
      assert.equal(r.headers.get('connection')?.toLowerCase(), 'close', `${what}: Connection: close`);
      assert.deepEqual(more, [], `${what}: one response`);
      assert.ok(closedByServer, `${what}: the server closed the connection`);
    });
  }

  test('a bad chunk size in a body → 400 bad_request, one response', async (t) => {
    const { port, auth } = await served(t);
    const { data, closedByServer } = await exchange(port, [
      `POST /v1/pets HTTP/1.1\r\n${HOST}Authorization: ${auth.authorization}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      'zz\r\n{}\r\n0\r\n\r\n',
    ]);
    const all = responses(data);
    assert.equal(all.length, 1, data);
    assertErrorResponse(all[0], 400, 'bad_request', 'bad chunk size');
    assert.ok(closedByServer);
  });

  test('a request that is not received in time → 408 request_timeout in the Error shape', async (t) => {
    const { port } = await listening(t, { env: { HEADERS_TIMEOUT_MS: '500', REQUEST_TIMEOUT_MS: '1000' } });
    const { data, closedByServer } = await exchange(port, `GET /v1/pets HTTP/1.1\r\n${HOST}`, 4000);
    const [r] = responses(data);
    assertErrorResponse(r, 408, 'request_timeout', 'slow head');
    assert.ok(closedByServer);
  });

  test('a malformed message after a good one on the same connection is answered after the good one', async (t) => {
    const { port, auth } = await served(t);
    const { data } = await exchange(
      port,
      `GET /v1/categories HTTP/1.1\r\n${HOST}Authorization: ${auth.authorization}\r\n\r\nGET /v1/pets HTTP/1.1\r\nBad Header: x\r\n\r\n`,
    );
    const [first, second, ...more] = responses(data);
    assert.equal(first.status, 200);
    assert.equal(JSON.parse(first.body).length, 6);
    assertErrorResponse(second, 400, 'bad_request', 'the second message');
    assert.deepEqual(more, []);
  });

  test('these answers carry every header the OpenAPI document marks required for their status', async (t) => {
    const doc = JSON.parse(await readFile(new URL('../../openapi.json', import.meta.url), 'utf8'));
    const { port } = await listening(t, { env: { HEADERS_TIMEOUT_MS: '500', REQUEST_TIMEOUT_MS: '1000' } });
    const cases: [status: number, bytes: string][] = [
      [408, `GET /v1/pets HTTP/1.1\r\n${HOST}`],
      [431, `GET /v1/pets HTTP/1.1\r\n${HOST}Authorization: Bearer ${'a'.repeat(20_000)}\r\n\r\n`],
      [505, `GET /v1/pets HTTP/9.9\r\n${HOST}\r\n`],
    ];
    for (const [status, bytes] of cases) {
      const [r] = responses((await exchange(port, bytes, 4000)).data);
      assert.equal(r.status, status);
      // Shared (referenced) response headers are the required ones.
      // The exchange errors are every operation's `default` response, a shared component.
      const listPets = doc.paths['/pets'].get.responses;
      const response = listPets[status] ?? doc.components.responses[listPets.default.$ref.replace('#/components/responses/', '')];
      const documented = response.headers as Record<string, { $ref?: string }>;
      const required = Object.entries(documented).filter(([, h]) => h.$ref !== undefined);
      assert.ok(required.length > 0, `${status}: the document requires headers`);
      for (const [name] of required) assert.ok(r.headers.has(name.toLowerCase()), `${status} ${name}`);
    }
  });
});

describe('HEAD responses never carry body bytes', () => {
  // One listening app for the tests that need the default one, reset between them (test/helpers/app.ts).
  const served = sharedListening();
  test("HEAD with header fields over the limit → 431 with its Content-Length and no body (the fuzzer's case)", async (t) => {
    const { port } = await served(t);
    const { data, closedByServer } = await exchange(port, `HEAD /v1/categories HTTP/1.1\r\n${HOST}Authorization: Bearer ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(data, /^HTTP\/1\.1 431 /);
    assert.ok(data.endsWith('\r\n\r\n'), `nothing after the head: ${JSON.stringify(data.slice(data.indexOf('\r\n\r\n')))}`);
    assert.ok(Number(/\r\nContent-Length: (\d+)\r\n/i.exec(data)?.[1]) > 0, 'Content-Length says what a GET would get');
    assert.ok(closedByServer);
  });

  test('HEAD with a malformed header, pipelined after a GET: the GET is answered, then a bodiless 400', async (t) => {
    const { port, auth } = await served(t);
    const { data } = await exchange(
      port,
      `GET /v1/categories HTTP/1.1\r\n${HOST}Authorization: ${auth.authorization}\r\n\r\nHEAD /v1/pets HTTP/1.1\r\nBad Header: x\r\n\r\n`,
    );
    const [first, second, ...more] = responses(data, [false, true]);
    assert.equal(first.status, 200);
    assert.equal(second.status, 400);
    assert.deepEqual(more, [], `no bytes after the HEAD's head: ${JSON.stringify(data.slice(-200))}`);
  });

  test('HEAD answered by the service (401, 404, 400, 200) on a keep-alive connection: heads only, in order', async (t) => {
    const { port, auth } = await served(t);
    const a = `Authorization: ${auth.authorization}\r\n`;
    const requests = [
      `HEAD /v1/pets HTTP/1.1\r\n${HOST}\r\n`,
      `HEAD /v1/nowhere HTTP/1.1\r\n${HOST}${a}\r\n`,
      `HEAD /v1/pets/x HTTP/1.1\r\n${HOST}${a}\r\n`,
      `HEAD /v1/pets?limit=0x1 HTTP/1.1\r\n${HOST}${a}\r\n`,
      `HEAD /v1/categories HTTP/1.1\r\n${HOST}${a}Connection: close\r\n\r\n`,
    ];
    const { data } = await exchange(port, requests);
    const all = responses(
      data,
      requests.map(() => true),
    );
    assert.deepEqual(
      all.map((r) => r.status),
      [401, 404, 400, 400, 200],
    );
    for (const r of all) assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
  });
});

describe('what node:http would answer by itself goes through the service', () => {
  test('an Expect other than 100-continue is served (not a bare 417)', async (t) => {
    const { port, auth } = await listening(t);
    const { data } = await exchange(
      port,
      `GET /v1/categories HTTP/1.1\r\n${HOST}Authorization: ${auth.authorization}\r\nExpect: something-else\r\nConnection: close\r\n\r\n`,
    );
    const [r] = responses(data);
    assert.equal(r.status, 200);
  });

  test('a request arriving while the service shuts down → 503 service_unavailable with Retry-After, in the Error shape', async (t) => {
    const { app, port, auth } = await listening(t);
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('latin1');
    let data = '';
    socket.on('data', (d: string) => (data += d));
    socket.on('error', () => {});
    await once(socket, 'connect');
    const body = JSON.stringify({ name: 'Rex', categoryId: 1 });
    // A request in flight (its body not yet sent) keeps the connection busy while close() begins.
    socket.write(
      `POST /v1/pets HTTP/1.1\r\n${HOST}Authorization: ${auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await new Promise((r) => setTimeout(r, 50));
    const closed = app.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write(`${body}GET /v1/categories HTTP/1.1\r\n${HOST}Authorization: ${auth.authorization}\r\n\r\n`);
    await Promise.race([once(socket, 'close'), new Promise((r) => setTimeout(r, 3000))]);
    socket.destroy();
    await closed;
    const [created, refused] = responses(data);
    assert.equal(created.status, 201, 'the request in flight finishes');
    assertErrorResponse(refused, 503, 'service_unavailable', 'during shutdown');
    assert.equal(refused.headers.get('retry-after'), '1');
  });
});

describe('a body over the limit: 413, then a graceful close', () => {
  for (const framing of ['content-length', 'chunked'] as const) {
    test(`50 posts of 2 MiB (${framing}) through fetch while other traffic runs: each gets 413`, async (t) => {
      const { port, auth } = await listening(t);
      const base = `http://127.0.0.1:${port}`;
      const headers = { ...auth, 'content-type': 'application/json' };
      const text = JSON.stringify({ name: 'x'.repeat(2 * MiB), categoryId: 1 });
      const body = () => {
        if (framing === 'content-length') return text;
        // A streamed body (chunked): the service refuses it after 64 KiB, while the client still sends.
        let sent = 0;
        return new ReadableStream({
          async pull(controller) {
            if (sent >= 2 * MiB) return controller.close();
            await new Promise((r) => setImmediate(r));
            controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
            sent += 64 * 1024;
          },
        });
      };
      let stop = false;
      const other = async () => {
        let n = 0;
        for (; !stop; n++) assert.equal((await (await fetch(`${base}/v1/pets`, { headers: auth })).arrayBuffer()).byteLength > 0, true);
        return n;
      };
      const background = Promise.all([other(), other()]);
      const outcomes = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const seen: string[] = [];
          for (let i = 0; i < 10; i++) {
            try {
              const res = await fetch(`${base}/v1/pets`, { method: 'POST', headers, body: body(), duplex: 'half' } as RequestInit);
              seen.push(`${res.status} ${(await res.json()).code}`);
            } catch (err) {
              seen.push(`failed: ${((err as Error).cause as Error | undefined)?.message ?? err}`);
            }
          }
          return seen;
        }),
      );
      stop = true;
      assert.ok(
        (await background).every((n) => n > 0),
        'other traffic ran meanwhile',
      );
      const counts: Record<string, number> = {};
      for (const o of outcomes.flat()) counts[o] = (counts[o] ?? 0) + 1;
      assert.deepEqual(counts, { '413 payload_too_large': 50 });
    });
  }

  test('a client that keeps uploading after the 413 is read from for a bounded time, then cut off', async (t) => {
    const { port, auth } = await listening(t);
    // allowHalfOpen: the service's FIN does not end this client's sending.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    socket.setEncoding('latin1');
    let data = '';
    let answeredAt = 0;
    socket.on('data', (d: string) => {
      data += d;
      answeredAt ||= Date.now();
    });
    socket.on('error', () => {});
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await once(socket, 'connect');
    socket.write(
      `POST /v1/pets HTTP/1.1\r\n${HOST}Authorization: ${auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${1024 * MiB}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    // A client that never stops sending and never closes: only the service can end this.
    const deadline = Date.now() + LINGER_MS + 5000;
    while (!socket.destroyed && Date.now() < deadline) {
      if (!socket.write(chunk)) await Promise.race([once(socket, 'drain').catch(() => {}), closed, new Promise((r) => setTimeout(r, 200))]);
    }
    await Promise.race([closed, new Promise((r) => setTimeout(r, 1000))]);
    assert.match(data, /^HTTP\/1\.1 413 [\s\S]*"code":"payload_too_large"/);
    assert.ok(socket.destroyed, 'the service closed the connection');
    const lingered = Date.now() - answeredAt;
    assert.ok(lingered >= LINGER_MS - 200 && lingered < LINGER_MS + 2000, `closed ${lingered} ms after the answer`);
  });

  test('a client that resets the connection while it is being closed changes nothing', async (t) => {
    const { port, auth } = await listening(t);
    for (const request of [
      `POST /v1/pets HTTP/1.1\r\n${HOST}Authorization: ${auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${4 * MiB}\r\n\r\n${' '.repeat(64 * 1024)}`,
      `GET /v1/pets HTTP/1.1\r\n${HOST}X-Note: a\0b\r\n\r\n`,
      `CONNECT /v1/pets HTTP/1.1\r\n${HOST}Authorization: ${auth.authorization}\r\n\r\n`,
    ]) {
      const socket: Socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      await once(socket, 'connect');
      socket.write(request);
      await once(socket, 'data');
      socket.write(' '.repeat(64 * 1024));
      socket.resetAndDestroy();
      await once(socket, 'close');
    }
    const { data } = await exchange(port, `GET /v1/categories HTTP/1.1\r\n${HOST}Authorization: ${auth.authorization}\r\nConnection: close\r\n\r\n`);
    assert.match(data, /^HTTP\/1\.1 200 /);
  });
});
