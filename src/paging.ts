import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors.ts';
import type { PageQuery } from './schemas.ts';

/** One page of a keyset-paged listing: its items and, when more may follow, the next cursor. */
export interface Page<T> {
  readonly items: T[];
  readonly next?: string;
}

/**
 * Opaque keyset cursors: `<payload>.<mac>` where payload = base64url("<scope>\n<lastId>") and
 * mac = HMAC-SHA256(secret, payload) truncated to 128 bits. The scope names the listing and its
 * filters, so a cursor from another listing (or with other filters) is refused as foreign, and a
 * changed byte is refused as tampered. The secret lives in the database, so every instance
 * accepts every other instance's cursors.
 */
export class CursorCodec {
  readonly #secret: string;
  // Busy listings hand out, and are asked for, the same few next-page cursors over and over, and
  // an HMAC is a measurable share of a page's cost (docs/performance.md): both directions are
  // deterministic, so bounded memos of their results are exact.
  readonly #encoded = new Map<string, string>();
  readonly #decoded = new Map<string, { scope: string; position: string }>();

  constructor(secret: string) {
    this.#secret = secret;
  }

  encode(scope: string, lastId: number): string {
    return this.encodePosition(scope, String(lastId));
  }

  /** Returns the id to continue after; throws AppError('invalid_cursor'). */
  decode(scope: string, cursor: string): number {
    return Number(this.decodePosition(scope, cursor));
  }

  /** A cursor for a position of any form (a listing ordered by more than its id keeps its sort value too). */
  encodePosition(scope: string, position: string): string {
    const text = `${scope}\n${position}`;
    let cursor = this.#encoded.get(text);
    if (cursor === undefined) {
      const payload = Buffer.from(text).toString('base64url');
      cursor = `${payload}.${this.#mac(payload)}`;
      if (this.#encoded.size >= 10_000) this.#encoded.clear();
      this.#encoded.set(text, cursor);
    }
    return cursor;
  }

  /** The position encodePosition was given; throws AppError('invalid_cursor'). */
  decodePosition(scope: string, cursor: string): string {
    const known = this.#decoded.get(cursor);
    if (known !== undefined && known.scope === scope) return known.position;
    const position = this.#verify(scope, cursor);
    if (this.#decoded.size >= 10_000) this.#decoded.clear();
    this.#decoded.set(cursor, { scope, position });
    return position;
  }

  #verify(scope: string, cursor: string): string {
    const dot = cursor.indexOf('.');
    const payload = cursor.slice(0, dot);
    const mac = Buffer.from(cursor.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.#mac(payload), 'base64url');
    if (dot <= 0 || mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
      throw new AppError('invalid_cursor', 'query parameter "cursor" is not a cursor this service issued; use the Link rel="next" URL as given');
    }
    const text = Buffer.from(payload, 'base64url').toString();
    const newline = text.indexOf('\n');
    if (text.slice(0, newline) !== scope) {
      throw new AppError(
        'invalid_cursor',
        'query parameter "cursor" belongs to a listing with other filters or another sort; keep the filters and the sort of the Link rel="next" URL',
      );
    }
    return text.slice(newline + 1);
  }

  /**
   * One page of a keyset-paged listing: verifies the request's `cursor` for `scope`, has `fetch`
   * read limit + 1 rows after that position (`from` is undefined without a cursor: the listing's
   * start) — one row more than asked tells whether a next page exists without a second query —
   * and signs the cursor of the next page; `key` is the keyset position of a row (its numeric id
   * unless told otherwise).
   */
  async fetchPage<T>(
    scope: string,
    q: PageQuery,
    fetch: (limit: number, from: number | undefined) => Promise<T[]>,
    key: (row: T) => number = (row) => (row as { id: number }).id,
  ): Promise<Page<T>> {
    return this.fetchPageAt(
      scope,
      q,
      async (limit, from) => ({ rows: await fetch(limit, from === undefined ? undefined : Number(from)) }),
      (row) => String(key(row)),
    );
  }

  /**
   * fetchPage for positions of any form, written as text (PetListing.position). A fetch that reads
   * at most so many rows may stop short of a page and say where it stopped (`resumeAt`): the page
   * then has what was found, possibly nothing, and a next cursor from there.
   */
  async fetchPageAt<T>(
    scope: string,
    q: PageQuery,
    fetch: (limit: number, from: string | undefined) => Promise<{ rows: T[]; resumeAt?: string }>,
    key: (row: T) => string,
  ): Promise<Page<T>> {
    const limit = q.limit ?? 20;
    const { rows, resumeAt } = await fetch(limit + 1, q.cursor === undefined ? undefined : this.decodePosition(scope, q.cursor));
    if (rows.length <= limit) return resumeAt === undefined ? { items: rows } : { items: rows, next: this.encodePosition(scope, resumeAt) };
    const items = rows.slice(0, limit);
    return { items, next: this.encodePosition(scope, key(items[items.length - 1])) };
  }

  #mac(payload: string): string {
    return createHmac('sha256', this.#secret).update(payload).digest().subarray(0, 16).toString('base64url');
  }
}

/** A filter of a listing as its next link repeats it; a list is repeated item by item. */
export type LinkParam = string | number | undefined | readonly string[];

/**
 * The RFC 8288 `Link: <…>; rel="next"` value of a page, keeping every filter of the request; the
 * query is written as URLSearchParams writes it (application/x-www-form-urlencoded).
 */
export function nextLink(base: string, path: string, params: Record<string, LinkParam>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    // A list parameter is repeated, as it was given (tag=a&tag=b).
    for (const item of Array.isArray(v) ? v : [v]) if (item !== undefined) query.append(k, String(item));
  }
  return `<${base}${path}?${query}>; rel="next"`;
}

/** Sets a listing's `Link: rel="next"` header when its page has a next one: `params` are the request's filters. */
export function linkNext(
  reply: { header(name: string, value: string): unknown },
  page: Page<unknown>,
  base: string,
  path: string,
  params: Record<string, LinkParam>,
): void {
  if (page.next !== undefined) reply.header('link', nextLink(base, path, { ...params, cursor: page.next }));
}

/**
 * Every page of a keyset listing, from its first, following each page's cursor: how an export reads
 * a listing of any length a page at a time. The first page is read before this returns, so a query
 * the listing refuses is refused before anything is sent; each next one when the consumer asks for it.
 */
export async function everyPage<T>(list: (cursor: string | undefined) => Promise<Page<T>>): Promise<AsyncGenerator<T[]>> {
  const first = await list(undefined);
  return (async function* () {
    for (let page = first; ; page = await list(page.next)) {
      yield page.items;
      if (page.next === undefined) return;
    }
  })();
}
