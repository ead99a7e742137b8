import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { nonPublic } from '../../src/webhooks/webhook.address.ts';
import { nextAttemptAt } from '../../src/webhooks/webhook.dispatcher.ts';
import { retryAfter } from '../../src/webhooks/webhook.retry-after.ts';
import { SecretBox } from '../../src/webhooks/webhook.secret-box.ts';
import { generateSecret, signatureHeader } from '../../src/webhooks/webhook.signature.ts';

describe('nonPublic', () => {
  const cases: [string, RegExp | undefined][] = [
    ['8.8.8.8', undefined],
    ['93.184.216.34', undefined],
    ['172.32.0.1', undefined],
    ['100.128.0.1', undefined],
    ['2606:4700::1111', undefined],
    ['::ffff:8.8.8.8', undefined],
    ['64:ff9b::808:808', undefined],
    ['2002:808:808::1', undefined],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['10.255.255.255', /private/],
    ['172.16.0.0', /private/],
    ['172.31.255.255', /private/],
    ['192.168.0.1', /private/],
    ['100.64.0.0', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['169.254.169.254', /link-local/],
    ['192.0.0.8', /IETF/],
    ['192.0.2.1', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['224.0.0.251', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /broadcast/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['::ffff:127.0.0.1', /loopback: it carries the IPv4 address 127\.0\.0\.1/],
    ['::ffff:7f00:1', /loopback/],
    ['::ffff:a9fe:a9fe', /link-local/],
    ['::ffff:0a00:0001', /private/],
    ['64:ff9b::7f00:1', /loopback/],
    ['64:ff9b:1::1', /local-use NAT64/],
    ['2002:a9fe:a9fe::', /link-local/],
    ['100::1', /discard/],
    ['2001::1', /IETF/],
    ['2001:db8::1', /documentation/],
    ['fc00::1', /unique local/],
    ['fdff:ffff::1', /unique local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['1::1', /not global unicast/],
    ['4000::1', /not global unicast/],
  ];
  for (const [address, expected] of cases) {
    test(`${address} → ${expected ?? 'public'}`, () => {
      const why = nonPublic(address);
      if (expected === undefined) assert.equal(why, undefined);
      else assert.match(why ?? 'public', expected);
    });
  }
});

describe('nextAttemptAt', () => {
  const schedule = [0, 5_000, 300_000];
  const from = new Date('2026-01-01T00:00:00Z');
  test('follows the schedule after each failure, ±10 % jitter, and ends with it', () => {
    assert.equal(nextAttemptAt(schedule, 1, from, () => 0.5)!.getTime() - from.getTime(), 5_000);
    assert.equal(nextAttemptAt(schedule, 2, from, () => 0.5)!.getTime() - from.getTime(), 300_000);
    assert.equal(nextAttemptAt(schedule, 2, from, () => 0)!.getTime() - from.getTime(), 270_000);
    assert.equal(nextAttemptAt(schedule, 2, from, () => 0.999_999)!.getTime() - from.getTime(), 330_000);
    assert.equal(
      nextAttemptAt(schedule, 3, from, () => 0.5),
      null,
    );
    assert.equal(
      nextAttemptAt(schedule, 9, from, () => 0.5),
      null,
    );
  });

  test("a receiver's Retry-After delays the retry, never below the schedule's delay nor above its longest", () => {
    const after = (ms: number) => new Date(from.getTime() + ms);
    const due = (attempt: number, asked: Date | null) => nextAttemptAt(schedule, attempt, from, () => 0.5, asked)!.getTime() - from.getTime();
    assert.equal(due(1, after(60_000)), 60_000, 'later than the schedule: as asked');
    assert.equal(due(1, after(1_000)), 5_000, 'earlier than the schedule: the schedule');
    assert.equal(due(1, after(-60_000)), 5_000, 'in the past: the schedule');
    assert.equal(due(1, after(86_400_000)), 300_000, "beyond the schedule's longest delay: that delay");
    assert.equal(due(2, after(86_400_000)), 300_000);
    assert.equal(
      nextAttemptAt(schedule, 3, from, () => 0.5, after(1_000)),
      null,
      'an exhausted schedule stays exhausted',
    );
  });
});

describe('retryAfter (RFC 9110 §10.2.3, on 429 and 503)', () => {
  const now = new Date('2026-11-28T10:00:00.000Z');
  const cases: [number | null, string | undefined, string | null][] = [
    [429, '120', '2026-11-28T10:02:00.000Z'],
    [503, '0', '2026-11-28T10:00:00.000Z'],
    [503, ' 7 ', '2026-11-28T10:00:07.000Z'],
    [429, 'Sat, 28 Nov 2026 11:30:00 GMT', '2026-11-28T11:30:00.000Z'],
    [503, 'Saturday, 28-Nov-26 11:30:00 GMT', '2026-11-28T11:30:00.000Z'],
    [503, 'Monday, 28-Nov-77 11:30:00 GMT', '1977-11-28T11:30:00.000Z'],
    [503, 'Sat Nov 28 11:30:00 2026', '2026-11-28T11:30:00.000Z'],
    [503, 'Tue Dec  1 08:00:00 2026', '2026-12-01T08:00:00.000Z'],
    [503, 'Fri, 27 Nov 2026 10:00:00 GMT', '2026-11-27T10:00:00.000Z'],
    [500, '120', null],
    [502, '120', null],
    [200, '120', null],
    [null, '120', null],
    [429, undefined, null],
    [429, '', null],
    [429, '-1', null],
    [429, '1.5', null],
    [429, '120, 60', null],
    [429, 'soon', null],
    [429, 'Sat, 31 Feb 2026 11:30:00 GMT', null],
    [429, 'Sat, 28 Nov 2026 24:00:00 GMT', null],
    [429, 'Sat, 28 Nov 2026 11:30:00 UTC', null],
    [429, '2026-11-28T11:30:00Z', null],
  ];
  for (const [status, value, expected] of cases)
    test(`${status} ${JSON.stringify(value)} → ${expected ?? 'the schedule alone'}`, () => {
      assert.equal(retryAfter(status, value, now)?.toISOString() ?? null, expected);
    });
});

describe('signatures', () => {
  test('a secret is whsec_ + base64 of 32 random bytes', () => {
    const a = generateSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(a.slice(6), 'base64').length, 32);
    assert.notEqual(generateSecret(), a);
  });

  test('signatureHeader agrees with the Standard Webhooks reference library, one v1 signature per secret', () => {
    const [s1, s2] = [generateSecret(), generateSecret()];
    const body = '{"id":"evt_1","type":"pet.created","createdAt":"2026-01-01T00:00:00.000Z","data":{"id":1,"name":"Rëx 🐕"}}';
    const ts = Math.floor(Date.now() / 1000);
    const header = signatureHeader([s1, s2], 'evt_1', ts, body);
    assert.equal(header, `${new Webhook(s1).sign('evt_1', new Date(ts * 1000), body)} ${new Webhook(s2).sign('evt_1', new Date(ts * 1000), body)}`);
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts), 'webhook-signature': header };
    assert.ok(new Webhook(s1).verify(body, headers));
    assert.ok(new Webhook(s2).verify(body, headers));
    assert.throws(() => new Webhook(generateSecret()).verify(body, headers), /No matching signature/);
  });
});

describe('SecretBox', () => {
  const k1 = Buffer.alloc(32, 1);
  const k2 = Buffer.alloc(32, 2);
  test('seals so that only a box holding the key opens, and every seal differs', () => {
    const box = new SecretBox([k1]);
    const sealed = box.seal('whsec_abc');
    assert.match(sealed, /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    assert.ok(!sealed.includes('whsec_abc'));
    assert.notEqual(box.seal('whsec_abc'), sealed);
    assert.equal(box.open(sealed), 'whsec_abc');
    assert.throws(() => new SecretBox([k2]).open(sealed), /not configured/);
  });

  test('the first key seals; the others still open what they sealed', () => {
    const old = new SecretBox([k1]).seal('old secret');
    const box = new SecretBox([k2, k1]);
    assert.equal(box.open(old), 'old secret');
    assert.equal(new SecretBox([k2]).open(box.seal('new secret')), 'new secret');
  });

  test('a changed byte is refused', () => {
    const box = new SecretBox([k1]);
    const sealed = box.seal('whsec_abc');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3], 'base64url');
    body[0] ^= 1;
    assert.throws(() => box.open([...parts.slice(0, 3), body.toString('base64url')].join('.')));
    assert.throws(() => new SecretBox([]), /32-byte/);
  });
});
