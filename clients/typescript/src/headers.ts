// Parsers for the response headers the client acts on. Pure functions of header values.

export interface LinkValue {
  readonly href: string;
  readonly rel: readonly string[];
}

/** RFC 8288 `Link` values: `<href>; rel="a b"; …, <href>; …` (other parameters ignored). */
export function parseLink(header: string | null): LinkValue[] {
  if (!header) return [];
  const links: LinkValue[] = [];
  const value = /<([^>]*)>((?:\s*;\s*[^;,=\s]+\s*(?:=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))?)*)/g;
  for (const [, href, params] of header.matchAll(value)) {
    const rel = /;\s*rel\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;,\s]*))/i.exec(params!);
    links.push({ href: href!, rel: (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/).filter(Boolean) });
  }
  return links;
}

/** The target of the first link with relation `rel`, if any. */
export function linkTarget(header: string | null, rel: string): string | undefined {
  return parseLink(header).find((l) => l.rel.includes(rel))?.href;
}

/** `Retry-After` (RFC 9110 §10.2.3) as seconds from `now`: delay-seconds or an HTTP-date. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = /^[A-Za-z]/.test(value) ? Date.parse(value) : Number.NaN; // every HTTP-date form starts with the day's name
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The last `RateLimit` / `RateLimit-Policy` values the service sent (IETF httpapi ratelimit headers). */
export interface RateLimit {
  /** The policy's name (`default`). */
  readonly policy: string;
  /** Requests left in the current window. */
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly resetSeconds: number;
  /** The policy's quota per window (`q`), when `RateLimit-Policy` names it. */
  readonly limit: number | undefined;
  /** The policy's window in seconds (`w`), when `RateLimit-Policy` names it. */
  readonly windowSeconds: number | undefined;
}

interface Item {
  readonly name: string;
  readonly params: ReadonlyMap<string, number>;
}

/**
 * A structured-field list (RFC 9651) of string or token items with integer parameters, the subset
 * these headers use: `"default";r=5;t=30, "burst";r=0;t=1`. Parsing stops at a member outside it.
 */
function parseItems(header: string): Item[] {
  const items: Item[] = [];
  const member = /\s*(?:"((?:[^"\\]|\\.)*)"|([A-Za-z*][\w:.%*/!#$&'+^`|~-]*))((?:;[a-z*][a-z0-9_.*-]*(?:=[^;,]*)?)*)\s*(?:,|$)/gy;
  while (member.lastIndex < header.length) {
    const match = member.exec(header);
    if (match === null) break;
    const params = new Map<string, number>();
    for (const [, key, value] of match[3]!.matchAll(/;([a-z*][a-z0-9_.*-]*)(?:=(-?\d{1,15}))?/g)) if (value !== undefined) params.set(key!, Number(value));
    items.push({ name: match[1] ?? match[2]!, params });
  }
  return items;
}

/** The most restrictive policy in `RateLimit` (the fewest requests left), with its quota and window. */
export function parseRateLimit(rateLimit: string | null, policy: string | null): RateLimit | undefined {
  if (!rateLimit) return undefined;
  const limits = parseItems(rateLimit).filter((i) => i.params.has('r') && i.params.has('t'));
  if (limits.length === 0) return undefined;
  const tightest = limits.reduce((a, b) => (b.params.get('r')! < a.params.get('r')! ? b : a));
  const quota = policy ? parseItems(policy).find((i) => i.name === tightest.name) : undefined;
  return {
    policy: tightest.name,
    remaining: tightest.params.get('r')!,
    resetSeconds: tightest.params.get('t')!,
    limit: quota?.params.get('q'),
    windowSeconds: quota?.params.get('w'),
  };
}

/** The deprecation notice of a response (RFC 9745 `Deprecation`, RFC 8594 `Sunset`, `Link` rels), if it has one. */
export interface Deprecation {
  /** When the operation was deprecated (`Deprecation: @<unix seconds>`), or the raw value if another form. */
  readonly since: string;
  /** When it stops working (`Sunset`), if announced. */
  readonly sunset: string | undefined;
  /** Its successor (`Link rel="successor-version"`), resolved against `base`. */
  readonly successor: string | undefined;
  /** Documentation of the deprecation (`Link rel="deprecation"`), resolved against `base`. */
  readonly documentation: string | undefined;
}

function isoDate(ms: number): string | undefined {
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

export function parseDeprecation(headers: Headers, base: string): Deprecation | undefined {
  const deprecation = headers.get('deprecation');
  if (deprecation === null) return undefined;
  const sunset = headers.get('sunset');
  const link = headers.get('link');
  const resolve = (href: string | undefined) => (href === undefined ? undefined : new URL(href, base).href);
  const unix = /^@(-?\d+)$/.exec(deprecation.trim());
  return {
    since: (unix ? isoDate(Number(unix[1]) * 1000) : undefined) ?? deprecation,
    sunset: sunset === null ? undefined : (isoDate(Date.parse(sunset)) ?? sunset),
    successor: resolve(linkTarget(link, 'successor-version')),
    documentation: resolve(linkTarget(link, 'deprecation')),
  };
}
