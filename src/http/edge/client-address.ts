import { isIPv4 } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../../config.ts';

/**
 * Who the client is. request.ip is the TCP peer, or the address the trusted proxies name
 * (TRUST_PROXY, in Fastify's `trustProxy` form); what counts a client counts it by addressKey.
 */
export function trustedProxies(trustProxy: Config['trustProxy']): FastifyServerOptions['trustProxy'] {
  return typeof trustProxy === 'number' ? trustHops(trustProxy) : typeof trustProxy === 'object' ? [...trustProxy] : false;
}

/**
 * A hop count trusts the last `hops` addresses of the chain (the peer, then X-Forwarded-For from
 * the right) whoever sent them. Fastify treats a bare number as trusting nothing, because a
 * client that reaches an instance directly could name any address; TRUST_PROXY=<hops> is for
 * instances only the proxies can reach (docs/deploy.md), otherwise list the proxies' addresses.
 */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/**
 * The key the failed-authentication limit counts a client address under: an IPv4 address, or
 * the /64 prefix of an IPv6 address (one subscriber's network; a host picks any address in it
 * at will). An IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function addressKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  const zone = ip.indexOf('%');
  const address = (zone === -1 ? ip : ip.slice(0, zone)).toLowerCase();
  if (address.startsWith('::ffff:') && isIPv4(address.slice(7))) return address.slice(7);
  const gap = address.indexOf('::');
  const head = groups(gap === -1 ? address : address.slice(0, gap));
  if (head === undefined) return ip;
  if (gap === -1 && head.length !== 8) return ip;
  let first = head;
  if (head.length < 4) {
    if (gap === -1) return ip; // fewer than eight groups and no "::": not an IPv6 address
    const tail = groups(address.slice(gap + 2));
    if (tail === undefined || head.length + tail.length > 7) return ip;
    first = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  }
  return `${first[0]}:${first[1]}:${first[2]}:${first[3]}::/64`;
}

const GROUP = /^[0-9a-f]{1,4}$/;

/** The groups of one side of an IPv6 address, without leading zeros; undefined if malformed. */
function groups(side: string): string[] | undefined {
  if (side === '') return [];
  const out: string[] = [];
  for (const g of side.split(':')) {
    if (GROUP.test(g)) out.push(g.length > 1 && g.charCodeAt(0) === 48 /* 0 */ ? Number.parseInt(g, 16).toString(16) : g);
    else if (g.includes('.') && isIPv4(g)) {
      const [a, b, c, d] = g.split('.').map(Number);
      out.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
    } else return undefined;
  }
  return out;
}
