import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { buildTestApp } from '../helpers/app.ts';

describe('GET /docs (API reference page)', () => {
  test('redirects /docs to /docs/ without asking for a key', async (t) => {
    const { app } = await buildTestApp(t);
    const res = await app.inject({ method: 'GET', url: '/docs' });
    assert.equal(res.statusCode, 301);
    assert.equal(res.headers.location, '/docs/');
  });

  test('serves an HTML page that loads nothing from another host', async (t) => {
    const { app } = await buildTestApp(t);
    const res = await app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.doesNotMatch(res.body, /https?:\/\//, 'no absolute URL: every asset is relative to this service');
    assert.match(res.body, /<script src="js\/scalar\.js"><\/script>/);
    assert.match(res.body, /"url": "\.\.\/v1\/openapi\.json"/, 'the page reads the published document');
    assert.match(res.body, /"withDefaultFonts": false/);
    assert.match(res.body, /"telemetry": false/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /connect-src 'self'(;|$)/);
  });

  test('serves the Scalar bundle from the installed package, without a key', async (t) => {
    const { app } = await buildTestApp(t);
    const res = await app.inject({ method: 'GET', url: '/docs/js/scalar.js' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/javascript/);
    assert.ok(res.body.length > 100_000, 'the whole bundle, not a loader');
  });

  test('lets "Test request" reach the configured production and staging origins (CSP connect-src)', async (t) => {
    const { app } = await buildTestApp(t, { env: { PUBLIC_BASE_URL: 'https://api.example.com/v1', STAGING_BASE_URL: 'https://staging.example.com/v1' } });
    const res = await app.inject({ method: 'GET', url: '/docs/' });
    assert.match(String(res.headers['content-security-policy']), /connect-src 'self' https:\/\/api\.example\.com https:\/\/staging\.example\.com(;|$)/);
  });

  test('serves the guides the document links to (docs/api.md, docs/events.md) beside the page, and the document names no other', async (t) => {
    const { app } = await buildTestApp(t);
    const text = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).body;
    assert.match(text, /\[API guide\]\(\/docs\/api\.md\)/);
    const named = new Set([...text.matchAll(/\(?\/?docs\/[\w.-]+\.md/g)].map((m) => m[0]));
    assert.deepEqual([...named].sort(), ['(/docs/api.md', '(/docs/events.md'], 'every guide is linked as served');
    for (const name of ['api.md', 'events.md']) {
      const res = await app.inject({ method: 'GET', url: `/docs/${name}` });
      assert.equal(res.statusCode, 200, name);
      assert.equal(res.headers['content-type'], 'text/markdown; charset=utf-8');
      assert.equal(res.body, await readFile(new URL(`../../docs/${name}`, import.meta.url), 'utf8'));
      assert.match(String(res.headers['content-security-policy']), /default-src 'self'/);
    }
  });

  test('answers 405 to other methods', async (t) => {
    const { app } = await buildTestApp(t);
    const res = await app.inject({ method: 'POST', url: '/docs/' });
    assert.equal(res.statusCode, 405);
    assert.match(String(res.headers.allow), /GET/);
  });
});

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
// In CI (.ci/run sets CI and installs Debian's chromium) a missing browser is a failure; a developer
// without it still gets a useful run.
const skipBrowser = !haveChromium && !process.env.CI ? `${CHROMIUM} not found (apt-get install chromium); CI runs this test` : false;

describe('API reference page in headless Chromium', () => {
  test('renders every operation from /v1/openapi.json, sends test requests to this service only, and requests nothing from another host', {
    skip: skipBrowser,
    timeout: 90_000,
  }, async (t) => {
    assert.ok(haveChromium, `Chromium is required in CI but ${CHROMIUM} is missing: install the Debian package chromium (.ci/run does)`);
    const { app, key } = await buildTestApp(t);
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const origin = new URL(base).origin;

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    t.after(() => browser.close());
    const page = await browser.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    let lastRequestAt = Date.now();
    page.on('request', (request) => {
      requests.push(request.url());
      lastRequestAt = Date.now();
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      // The bundle's zod probes `Function('')` once to pick its JIT; the CSP refuses eval and zod
      // falls back to its interpreter. Every other refusal is a problem.
      if (/Refused to load eval /.test(msg.text())) return;
      if (/Content Security Policy|Refused to/i.test(msg.text())) problems.push(`console: ${msg.text()}`);
    });
    // A request the CSP blocks may never reach the request log, so violations are recorded too.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) =>
        console.error(`Refused to load ${e.blockedURI} (Content Security Policy ${e.violatedDirective}) at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`),
      );
    });

    await page.goto(`${base}/docs`);
    await page.getByText('List animals').first().waitFor({ timeout: 30_000 });
    // Let late requests (fonts, telemetry, …) show up: wait for 1.5 s without a new request.
    // (Playwright's 'networkidle' never settles on this page.)
    while (Date.now() - lastRequestAt < 1500) await page.waitForTimeout(250);

    const text = (await page.locator('body').textContent()) ?? '';
    const summaries = [
      'List animals',
      'Add an animal',
      'Get an animal (deprecated)',
      'List categories',
      'List store orders',
      'Place an order for an animal',
      'Get an order',
      'Move an order to its next state',
    ];
    for (const summary of summaries) assert.ok(text.includes(summary), `the page shows the operation "${summary}"`);
    for (const path of ['/pets', '/pets/{petId}', '/categories', '/store/orders', '/store/orders/{orderId}']) {
      assert.ok(text.includes(path), `the page shows the path ${path}`);
    }
    assert.ok(text.includes('Pet Store API'), 'the document title');

    // Kept for a person to look at; its own folder, since other runs (other worktrees) share the temporary directory.
    const screenshot = join(mkdtempSync(join(tmpdir(), 'petstore-docs-')), 'docs.png');
    await page.screenshot({ path: screenshot });
    t.diagnostic(`screenshot: ${screenshot}`);

    // "Test Request": the in-page client calls the API directly (no proxy.scalar.com) with the key.
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click();
    await page.getByPlaceholder('Token').last().fill(key);
    const [sent] = await Promise.all([
      page.waitForRequest((r) => r.url().startsWith(`${origin}/v1/`) && r.headers().authorization === `Bearer ${key}`),
      page.getByRole('button', { name: /^Send/ }).first().click(),
    ]);
    assert.equal((await sent.response())?.status(), 200, sent.url());
    await page.getByText('200 OK').first().waitFor({ timeout: 10_000 });
    while (Date.now() - lastRequestAt < 1000) await page.waitForTimeout(250);

    assert.ok(requests.includes(`${origin}/v1/openapi.json`), 'the page loads the published document');
    assert.ok(requests.includes(`${origin}/docs/js/scalar.js`), 'the page loads the bundle from this service');
    const foreign = requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:'));
    assert.deepEqual(foreign, [], 'requests to another host');
    assert.deepEqual(problems, []);
  });
});

describe('GET / (the front door)', () => {
  test('redirects a person to the console with 302, without a key; other methods get 405', async (t) => {
    const { app } = await buildTestApp(t);
    const res = await app.inject({ method: 'GET', url: '/' });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/console/');
    const head = await app.inject({ method: 'HEAD', url: '/' });
    assert.equal(head.statusCode, 302);
    const post = await app.inject({ method: 'POST', url: '/', payload: {} });
    assert.equal(post.statusCode, 405);
  });
});
