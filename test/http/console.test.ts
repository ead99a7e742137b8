// How the service serves the console's files (src/http/ops/console.ts): the redirects, the policy
// headers, pre-compressed bodies by Accept-Encoding, revalidation, and a console that was not built.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { CONSOLE_CSP, chooseEncoding } from '../../src/http/ops/console.ts';
import { Metrics } from '../../src/http/ops/metrics.ts';
import { sharedTestApp } from '../helpers/app.ts';
import { openEngine } from '../helpers/engines.ts';

describe('/console', () => {
  // One app for the tests that need the default one, reset between them (test/helpers/app.ts).
  const testApp = sharedTestApp();
  test('/ redirects to the console, and /console to /console/', async (t) => {
    const { app } = await testApp(t);
    const root = await app.inject({ url: '/' });
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/console/');
    const bare = await app.inject({ url: '/console' });
    assert.equal(bare.statusCode, 301);
    assert.equal(bare.headers.location, '/console/');
  });

  test('the page comes with a strict Content-Security-Policy, needs no key, and names only files of its own', async (t) => {
    const { app } = await testApp(t);
    const res = await app.inject({ url: '/console/', headers: { 'accept-encoding': 'identity' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    assert.equal(csp, CONSOLE_CSP);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline script');
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe|https?:/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.doesNotMatch(res.body, /<script>|<style|\sstyle=|\son\w+=/i, 'no inline script, style or handler');
    const files = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(files.some((f) => f.endsWith('.js')) && files.some((f) => f.endsWith('.css')));
    for (const file of files) {
      assert.doesNotMatch(file, /^[a-z]+:|^\/\//, `${file} is relative to the page`);
      const asset = await app.inject({ url: `/console/${file}` });
      assert.equal(asset.statusCode, 200, file);
      if (!file.endsWith('.svg')) assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable', file);
    }
  });

  test("an animal's page (/console/pets/12) is the console's page, its files named one level up, so a reload or a shared link works", async (t) => {
    const { app } = await testApp(t);
    const index = await app.inject({ url: '/console/', headers: { 'accept-encoding': 'identity' } });
    const res = await app.inject({ url: '/console/pets/12', headers: { 'accept-encoding': 'identity' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['content-security-policy'], CONSOLE_CSP);
    assert.equal(res.headers['cache-control'], 'no-cache');
    const names = (body: string) => [...body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.deepEqual(
      names(res.body),
      names(index.body).map((f) => `../${f}`),
    );
    // Each resolves, from /console/pets/12, to a file the console serves.
    for (const file of names(res.body)) {
      const url = new URL(file, 'http://x/console/pets/12').pathname;
      assert.equal((await app.inject({ url })).statusCode, 200, url);
    }
    assert.equal(res.body.replaceAll('../', ''), index.body, 'the same page otherwise');
  });

  test('sends the Brotli or gzip copy the browser accepts, and 304 to a current ETag', async (t) => {
    const { app } = await testApp(t);
    const plain = await app.inject({ url: '/console/', headers: { 'accept-encoding': 'identity' } });
    const br = await app.inject({ url: '/console/', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'accept-encoding');
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body);
    const gz = await app.inject({ url: '/console/', headers: { 'accept-encoding': 'gzip, br;q=0' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gz.rawPayload).toString(), plain.body);
    assert.notEqual(gz.headers.etag, br.headers.etag, 'each encoding has its own tag');
    const again = await app.inject({ url: '/console/', headers: { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  test('an unknown file is a 404 Error body, and other methods 405', async (t) => {
    const { app } = await testApp(t);
    const res = await app.inject({ url: '/console/nope.js' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'not_found');
    assert.equal((await app.inject({ method: 'POST', url: '/console/' })).statusCode, 405);
  });

  test('a console that was not built answers 503 saying how to build it', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-console-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'main.js'), 'x'); // files, but no index.html: not a build
    const { storage, dispose } = await openEngine('sqlite');
    t.after(dispose);
    const app = await buildApp({ config: loadConfig({}), storage, metrics: new Metrics(storage, { processMetrics: false }), consoleDir: dir });
    t.after(() => app.close());
    const res = await app.inject({ url: '/console/' });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().code, 'service_unavailable');
    assert.match(res.json().message, /npm install/);
  });
});

test('chooseEncoding follows the weights of Accept-Encoding', () => {
  const all = new Map([
    ['identity', Buffer.alloc(0)],
    ['br', Buffer.alloc(0)],
    ['gzip', Buffer.alloc(0)],
  ] as const);
  assert.equal(chooseEncoding(undefined, all), 'identity');
  assert.equal(chooseEncoding('gzip', all), 'gzip');
  assert.equal(chooseEncoding('br;q=0.5, gzip', all), 'gzip');
  assert.equal(chooseEncoding('*', all), 'br');
  assert.equal(chooseEncoding('*, br;q=0', all), 'gzip');
  assert.equal(chooseEncoding('BR', new Map([['identity', Buffer.alloc(0)]])), 'identity');
});
