import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { linkTarget, parseDeprecation, parseLink, parseRateLimit, parseRetryAfter } from '../src/headers.ts';

describe('Link (RFC 8288)', () => {
  test('finds rel="next" among several links, quoted or not, case-insensitively', () => {
    const header = '</v1/pets>; rel="successor-version", </docs>; rel="deprecation"; type="text/html", </v1/pets?limit=2&cursor=a%2Cb>; REL=next';
    assert.equal(linkTarget(header, 'next'), '/v1/pets?limit=2&cursor=a%2Cb');
    assert.equal(linkTarget(header, 'successor-version'), '/v1/pets');
    assert.equal(linkTarget(header, 'deprecation'), '/docs');
    assert.deepEqual(parseLink('<a>; rel="prev next"')[0]!.rel, ['prev', 'next']);
  });

  test('no header, no such rel, or no rel at all → undefined', () => {
    assert.equal(linkTarget(null, 'next'), undefined);
    assert.equal(linkTarget('</v1/pets>; rel="prev"', 'next'), undefined);
    assert.equal(linkTarget('</v1/pets>; title="next"', 'next'), undefined);
  });
});

describe('Retry-After (RFC 9110 §10.2.3)', () => {
  test('delay-seconds', () => {
    assert.equal(parseRetryAfter('1'), 1);
    assert.equal(parseRetryAfter(' 30 '), 30);
    assert.equal(parseRetryAfter('0'), 0);
  });

  test('an HTTP-date, as seconds from now (never negative)', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('Tue, 01 Jan 2030 00:00:05 GMT', now), 5);
    assert.equal(parseRetryAfter('Mon, 31 Dec 2029 23:00:00 GMT', now), 0);
  });

  test('absent or unparseable → undefined', () => {
    assert.equal(parseRetryAfter(null), undefined);
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter('-1'), undefined);
  });
});

describe('RateLimit and RateLimit-Policy (IETF httpapi structured fields)', () => {
  test("the service's headers", () => {
    assert.deepEqual(parseRateLimit('"default";r=597;t=42', '"default";q=600;w=60'), {
      policy: 'default',
      remaining: 597,
      resetSeconds: 42,
      limit: 600,
      windowSeconds: 60,
    });
  });

  test('several policies: the one with the fewest requests left, its quota from the policy of that name', () => {
    const limit = parseRateLimit('"hour";r=900;t=3000, burst;r=3;t=1', '"hour";q=1000;w=3600, burst;q=10;w=1');
    assert.deepEqual(limit, { policy: 'burst', remaining: 3, resetSeconds: 1, limit: 10, windowSeconds: 1 });
  });

  test('without RateLimit-Policy the quota is unknown; without r or t there is nothing', () => {
    assert.deepEqual(parseRateLimit('"default";r=0;t=5', null), {
      policy: 'default',
      remaining: 0,
      resetSeconds: 5,
      limit: undefined,
      windowSeconds: undefined,
    });
    assert.equal(parseRateLimit('"default";t=5', null), undefined);
    assert.equal(parseRateLimit(null, '"default";q=600;w=60'), undefined);
    assert.equal(parseRateLimit('garbage', null), undefined);
  });
});

describe('Deprecation (RFC 9745), Sunset (RFC 8594)', () => {
  test("getPet's headers: since, sunset, successor and documentation, links resolved against the base URL", () => {
    const headers = new Headers({
      deprecation: '@1767225600',
      sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
      link: '</v1/pets>; rel="successor-version", </docs>; rel="deprecation"; type="text/html"',
    });
    assert.deepEqual(parseDeprecation(headers, 'https://api.example.com/v1'), {
      since: '2026-01-01T00:00:00.000Z',
      sunset: '2030-12-05T00:00:00.000Z',
      successor: 'https://api.example.com/v1/pets',
      documentation: 'https://api.example.com/docs',
    });
  });

  test('no Deprecation header → undefined; other forms are kept as sent', () => {
    assert.equal(parseDeprecation(new Headers({ sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' }), 'http://x/v1'), undefined);
    assert.deepEqual(parseDeprecation(new Headers({ deprecation: 'true' }), 'http://x/v1'), {
      since: 'true',
      sunset: undefined,
      successor: undefined,
      documentation: undefined,
    });
  });
});
