import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import type { buildConnector } from 'undici';
import { AppError, invalid } from '../errors.ts';

/** Resolves a host name to every address it has (the system resolver, or a test's own). */
export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;
const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

// Special-purpose ranges (IANA IPv4 and IPv6 special-purpose address registries) that a webhook
// must never reach: the service's own host and network, its cloud's metadata service
// (169.254.169.254), and everything not globally routable. [prefix, length, class].
const V4: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata services live here)'],
  ['172.16.0.0', 12, 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (and broadcast)'],
];
const V6: readonly [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001::', 23, 'IETF protocol assignments (Teredo, ORCHID, …)'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'segment routing (SRv6)'],
  ['fc00::', 7, 'unique local (ULA)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];
const RANGES = [...V4, ...V6].map(([prefix, length, name]) => ({ bytes: toBytes(prefix), length, name }));
const NAT64 = { bytes: toBytes('64:ff9b::'), length: 96 };

/** The 4 or 16 bytes of an IP address (an IPv6 zone is ignored). */
function toBytes(address: string): Uint8Array {
  const bare = address.split('%')[0].toLowerCase();
  if (isIP(bare) === 4) return Uint8Array.from(bare.split('.').map(Number));
  let text = bare;
  const tail = text.slice(text.lastIndexOf(':') + 1);
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number);
    text = `${text.slice(0, text.lastIndexOf(':') + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const h = head === '' ? [] : head.split(':');
  const r = rest === undefined || rest === '' ? [] : rest.split(':');
  const words = rest === undefined ? h : [...h, ...Array<string>(8 - h.length - r.length).fill('0'), ...r];
  return Uint8Array.from(words.flatMap((w) => [parseInt(w, 16) >> 8, parseInt(w, 16) & 0xff]));
}

function inRange(bytes: Uint8Array, range: { bytes: Uint8Array; length: number }): boolean {
  if (bytes.length !== range.bytes.length) return false;
  for (let bit = 0; bit < range.length; bit += 8) {
    const mask = range.length - bit >= 8 ? 0xff : (0xff << (8 - (range.length - bit))) & 0xff;
    if ((bytes[bit / 8] & mask) !== (range.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

/**
 * Why `address` is not a public address, or undefined when it is one. IPv6 forms that carry an
 * IPv4 address (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by
 * that IPv4 address; any other IPv6 address must be global unicast (2000::/3).
 */
export function nonPublic(address: string): string | undefined {
  const bytes = toBytes(address);
  if (bytes.length === 16) {
    const embedded = (at: number) => {
      const v4 = `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;
      const why = nonPublic(v4);
      return why && `${why}: it carries the IPv4 address ${v4}`;
    };
    const zeros = (n: number) => bytes.subarray(0, n).every((b) => b === 0);
    if (zeros(10) && bytes[10] === 0xff && bytes[11] === 0xff) return embedded(12);
    if (inRange(bytes, NAT64)) return embedded(12);
    if (bytes[0] === 0x20 && bytes[1] === 0x02) return embedded(2);
  }
  const range = RANGES.find((r) => inRange(bytes, r));
  if (range) return range.name;
  if (bytes.length === 16 && (bytes[0] & 0xe0) !== 0x20) return 'not global unicast';
  return undefined;
}

const bare = (host: string) => (host.startsWith('[') ? host.slice(1, -1) : host);
/** A host name or an address as WEBHOOK_ALLOWED_HOSTS entries spell it: lower case, IPv6 in brackets. */
const hostKey = (host: string) => {
  const b = bare(host).toLowerCase();
  return isIP(b) === 6 ? `[${b}]` : b;
};
/** The port a URL (or a connection's protocol and port) names: its own, else its scheme's. */
const portOf = (protocol: string, port: string | number | undefined): number => Number(port) || (protocol === 'https:' ? 443 : 80);

/**
 * Where a URL delivers to, as deliveries are grouped and limited per destination
 * (WEBHOOK_HOST_CONCURRENCY): the lowest of the addresses its host resolved to when it was checked
 * (AddressPolicy.check), and its port — so that two names of one machine (`localhost:8443`,
 * `127.0.0.1:8443`) share its slots; without addresses, its host and port as the URL spells them.
 */
export function destination(url: string, addresses: readonly string[] = []): string {
  const parsed = new URL(url);
  if (addresses.length === 0) return parsed.host;
  const address = [...addresses].sort()[0];
  return `${address.includes(':') ? `[${address}]` : address}:${portOf(parsed.protocol, parsed.port)}`;
}

/** A URL as it will be called, and its destination (`destination`). */
export interface CheckedUrl {
  readonly url: string;
  readonly destination: string;
}

export interface AddressPolicyOptions {
  /**
   * `host:port` and `host:*` entries exempt from the public-address rule (WEBHOOK_ALLOWED_HOSTS,
   * read by config.ts: a bare host there stands for ports 80 and 443), hosts as `hostKey` spells them.
   */
  readonly allowedHosts: readonly string[];
  readonly allowHttp: boolean;
  readonly resolve?: Resolve;
}

/**
 * Where webhooks may point (docs/events.md, "Security"): `https:` (`http:` only with
 * WEBHOOK_ALLOW_HTTP), no credentials in the URL, and a host whose every address is public —
 * unless the host or the address is listed in WEBHOOK_ALLOWED_HOSTS with the URL's port (an
 * allowed host is not an open door to its every service). Checked when a URL is
 * registered and again on every connection a delivery opens, against the address it connects
 * to: the resolver's answers are checked inside the connection's own lookup, so a name that
 * resolves elsewhere by the time of delivery (DNS rebinding) is refused before connecting.
 */
export class AddressPolicy {
  readonly #allowed: ReadonlySet<string>;
  readonly #allowHttp: boolean;
  readonly #resolve: Resolve;

  constructor(options: AddressPolicyOptions) {
    this.#allowed = new Set(options.allowedHosts);
    this.#allowHttp = options.allowHttp;
    this.#resolve = options.resolve ?? systemResolve;
  }

  /** Whether WEBHOOK_ALLOWED_HOSTS lists `host` (a name or an address) with `port`. */
  #allows(host: string, port: number): boolean {
    const key = hostKey(host);
    return this.#allowed.has(`${key}:${port}`) || this.#allowed.has(`${key}:*`);
  }

  /**
   * Why `host` (a URL's host name) must not be reached at `address` on `port`
   * (`10.0.0.1 (private (RFC 1918))`), or undefined when it may.
   */
  refusal(host: string, port: number, address: string): string | undefined {
    if (this.#allows(host, port) || this.#allows(address, port)) return undefined;
    const why = nonPublic(address);
    return why && `${address} (${why})`;
  }

  /** The URL as it will be called (WHATWG-normalized) and its destination; throws AppError('webhook_url_not_allowed'). */
  async check(raw: string): Promise<CheckedUrl> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalid('body field "url" must be an absolute URL', {
        in: 'body',
        field: 'url',
        rule: 'format',
        message: 'must be a whole web address such as https://example.com/hooks',
      });
    }
    const refuse = (why: string) => new AppError('webhook_url_not_allowed', `body field "url" is not allowed: ${why}`);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.#allowHttp)) {
      throw refuse(this.#allowHttp ? 'the scheme must be https: or http:' : 'the scheme must be https:');
    }
    if (url.username !== '' || url.password !== '') throw refuse('it must not contain credentials (user:password@); authenticate the sender by its signature');
    if (url.hash !== '') throw refuse('it must not contain a fragment (#…)');
    const host = bare(url.hostname);
    const port = portOf(url.protocol, url.port);
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else if (this.#allows(host, port)) {
      // Allowed whatever it resolves to; resolved only to name its destination.
      const resolved = await this.#resolve(host).catch(() => []);
      return {
        url: url.href,
        destination: destination(
          url.href,
          resolved.map((a) => a.address),
        ),
      };
    } else {
      try {
        addresses = (await this.#resolve(host)).map((a) => a.address);
      } catch {
        addresses = [];
      }
      if (addresses.length === 0) throw refuse(`its host ${host} does not resolve`);
    }
    for (const address of addresses) {
      const why = this.refusal(host, port, address);
      // For a name, what it resolves to is not said: the answer of this service's resolver (its
      // internal DNS names and addresses) is not the client's to learn.
      if (why)
        throw refuse(isIP(host) ? `its host is ${why}, not a public address` : `its host ${host} is not a public address (it resolves to one that is not)`);
    }
    return { url: url.href, destination: destination(url.href, addresses) };
  }

  /**
   * An undici connector that connects only where `refusal` allows, deciding before any
   * connection is made: a host name's addresses are checked inside the connection's own lookup
   * (net connects only to what the lookup returns, so what is checked is what is connected to),
   * an IP literal (for which no lookup is made) before connecting. A lookup knows no port, so
   * there is one connector per port. `tls` adds options to every TLS connection (the CAs trusted).
   * `build` is undici's buildConnector (passed in: undici is loaded only by an instance that sends).
   */
  connector(build: typeof buildConnector, timeoutMs: number, tls: Readonly<Record<string, unknown>> = {}): buildConnector.connector {
    const perPort = new Map<number, buildConnector.connector>();
    return (options, callback) => {
      const host = bare(options.hostname);
      const port = portOf(options.protocol, options.port);
      const literal = isIP(host) ? this.refusal(host, port, host) : undefined;
      if (literal) return callback(new AddressNotAllowedError(host, literal), null);
      let connect = perPort.get(port);
      if (connect === undefined) {
        connect = build({ ...tls, timeout: timeoutMs, lookup: this.#lookup(port) } as buildConnector.BuildOptions);
        perPort.set(port, connect);
      }
      return connect(options, callback);
    };
  }

  /** A `lookup` for net.connect that answers only with addresses `refusal` allows on `port`. */
  #lookup(port: number) {
    return (hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      this.#resolve(hostname).then(
        (addresses) => {
          const refused = addresses.map((a) => this.refusal(hostname, port, a.address)).find((why) => why !== undefined);
          if (refused) return callback(new AddressNotAllowedError(hostname, refused));
          if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }));
          // With autoSelectFamily (Node's default) net asks for every address.
          return options.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family);
        },
        (err: unknown) => callback(err),
      );
    };
  }
}

class AddressNotAllowedError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_NOT_ALLOWED';
  constructor(host: string, why: string) {
    super(`refused to connect to ${host}: ${why} is not a public address`);
    this.name = 'AddressNotAllowedError';
  }
}
