// Issue 26, item 6b: deliveries verify the receiver's certificate. A self-signed, expired or
// other-host certificate fails the attempt, saying which, and nothing is delivered; one signed by
// a CA the operator adds (WEBHOOK_CA_FILE, or Node's NODE_EXTRA_CA_CERTS) is accepted. The
// certificates are made here with openssl, once for the file. No storage rule: one engine.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { eventually } from '../helpers/receiver.ts';
import { webhookTest } from './helpers.ts';

const run = promisify(execFile);
const HOST = 'hooks.test';
// Every name is this machine: the URL's host decides which certificate name is expected.
const resolve = async () => [{ address: '127.0.0.1', family: 4 }];

let dir = '';
const pem: Record<'caCert' | 'good' | 'selfSigned' | 'expired' | 'otherHost' | 'key', string> = {
  caCert: '',
  good: '',
  selfSigned: '',
  expired: '',
  otherHost: '',
  key: '',
};

/** A CA, and leaf certificates with one EC key: good, expired and for another host (by the CA), and self-signed. */
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-tls-'));
  const at = (f: string) => join(dir, f);
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=Petstore test CA', '-days', '2');
  await openssl('req', ...ec, '-keyout', 'leaf.key', '-out', 'hooks.csr', '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`);
  await openssl('req', '-new', '-key', 'leaf.key', '-out', 'other.csr', '-subj', '/CN=other.test', '-addext', 'subjectAltName=DNS:other.test');
  await openssl('req', '-x509', '-key', 'leaf.key', '-out', 'self.crt', '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`, '-days', '2');
  // `openssl ca` takes explicit validity dates (OpenSSL 3.0's x509 does not).
  await writeFile(
    at('ca.cnf'),
    '[ca]\ndefault_ca = d\n[d]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\ndefault_md = sha256\npolicy = p\nunique_subject = no\ncopy_extensions = copy\n[p]\ncommonName = supplied\n',
  );
  await writeFile(at('index.txt'), '');
  await writeFile(at('serial'), '01\n');
  const sign = (csr: string, out: string, start: string, end: string) =>
    openssl(
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-cert',
      'ca.crt',
      '-keyfile',
      'ca.key',
      '-in',
      csr,
      '-out',
      out,
      '-notext',
      '-startdate',
      start,
      '-enddate',
      end,
    );
  const day = 86_400_000;
  const stamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace(/[-:T]/g, '').slice(2)}Z`;
  await sign('hooks.csr', 'good.crt', stamp(Date.now() - day), stamp(Date.now() + day));
  await sign('hooks.csr', 'expired.crt', stamp(Date.now() - 3 * day), stamp(Date.now() - 2 * day));
  await sign('other.csr', 'other.crt', stamp(Date.now() - day), stamp(Date.now() + day));
  pem.caCert = await readFile(at('ca.crt'), 'utf8');
  pem.key = await readFile(at('leaf.key'), 'utf8');
  pem.good = await readFile(at('good.crt'), 'utf8');
  pem.expired = await readFile(at('expired.crt'), 'utf8');
  pem.otherHost = await readFile(at('other.crt'), 'utf8');
  pem.selfSigned = await readFile(at('self.crt'), 'utf8');
});
after(() => rm(dir, { recursive: true, force: true }));

/** An HTTPS receiver presenting `cert`; counts what reaches it. */
async function httpsReceiver(t: TestContext, cert: string): Promise<{ port: number; received: string[] }> {
  const received: string[] = [];
  const server: Server = createServer({ key: pem.key, cert }, (req, res) => {
    received.push(req.url ?? '');
    res.writeHead(200).end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { port: (server.address() as AddressInfo).port, received };
}

async function deliverTo(t: TestContext, env: Record<string, string>, certs: Record<string, string>) {
  // A TLS handshake on a loaded machine can take longer than the helpers' 500 ms.
  const w = await webhookTest(t, 'sqlite', { env: { WEBHOOK_RETRY_SCHEDULE_MS: '0', WEBHOOK_TIMEOUT_MS: '10000', ...env }, webhooks: { resolve } });
  const receivers = await Promise.all(Object.values(certs).map((cert) => httpsReceiver(t, cert)));
  const hooks = await Promise.all(receivers.map((r) => w.register({ url: `https://${HOST}:${r.port}/hooks` })));
  await w.createPet();
  const outcomes = await Promise.all(
    hooks.map((h) =>
      eventually(async () => {
        const [d] = await w.deliveries(h.id);
        return d?.status === 'pending' ? undefined : d && [d.status, d.httpStatus, d.error];
      }, 20_000),
    ),
  );
  return Object.fromEntries(Object.keys(certs).map((name, i) => [name, { outcome: outcomes[i], received: receivers[i].received.length }]));
}

test('self-signed, expired and other-host certificates fail the attempt, saying which; a CA added with WEBHOOK_CA_FILE is trusted', async (t) => {
  const caFile = join(dir, 'ca.crt');
  const results = await deliverTo(
    t,
    { WEBHOOK_CA_FILE: caFile },
    { good: pem.good, selfSigned: pem.selfSigned, expired: pem.expired, otherHost: pem.otherHost },
  );
  assert.deepEqual(results, {
    good: { outcome: ['succeeded', 200, null], received: 1 },
    selfSigned: { outcome: ['failed', null, 'TLS: the certificate is self-signed'], received: 0 },
    expired: { outcome: ['failed', null, 'TLS: the certificate has expired'], received: 0 },
    otherHost: { outcome: ['failed', null, "TLS: the certificate is for another host (the URL's host is not among its names)"], received: 0 },
  });
});

test('without the CA added, a certificate it signed is refused as not signed by a trusted CA', async (t) => {
  const results = await deliverTo(t, {}, { good: pem.good });
  assert.deepEqual(results, { good: { outcome: ['failed', null, 'TLS: the certificate is not signed by a trusted CA'], received: 0 } });
});

test('NODE_EXTRA_CA_CERTS is trusted as well, with or without WEBHOOK_CA_FILE (a process started with it)', async (t) => {
  const good = await httpsReceiver(t, pem.good);
  const other = join(dir, 'other-ca.crt');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    join(dir, 'other-ca.key'),
    '-out',
    other,
    '-subj',
    '/CN=Another CA',
    '-days',
    '2',
  ]);
  // The sender as app.ts builds it, in a process whose Node reads NODE_EXTRA_CA_CERTS at start.
  const script = `
    import { AddressPolicy } from ${JSON.stringify(new URL('../../src/webhooks/webhook.address.ts', import.meta.url).href)};
    import { WebhookSender } from ${JSON.stringify(new URL('../../src/webhooks/webhook.sender.ts', import.meta.url).href)};
    const policy = new AddressPolicy({ allowedHosts: ['${HOST}:*'], allowHttp: false, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const results = [];
    for (const ca of [[], [${JSON.stringify(await readFile(other, 'utf8'))}]]) {
      const sender = new WebhookSender(policy, 5000, ca);
      results.push(await sender.send('https://${HOST}:${good.port}/hooks', { 'content-type': 'application/json' }, '{}'));
      await sender.close();
    }
    console.log(JSON.stringify(results));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.crt') } });
  assert.deepEqual(JSON.parse(stdout), [
    { status: 200, error: null },
    { status: 200, error: null },
  ]);
  assert.equal(good.received.length, 2);
});
