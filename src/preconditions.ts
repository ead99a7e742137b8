// Entity tags and the conditional request fields that carry them (RFC 9110 §8.8.3, §13.1), in one
// place: routes set ETag and answer If-None-Match with them; workflows evaluate If-Match with them
// inside the write's transaction, against the row they locked.
import { hash } from 'node:crypto';
import { AppError } from './errors.ts';
import { canonicalJson } from './json.ts';

/** One entity tag of a request field: its opaque part (between the quotes) and whether it is weak. */
export interface EntityTag {
  readonly opaque: string;
  readonly weak: boolean;
}

/** A parsed If-Match or If-None-Match: `*` or a list of entity tags. */
export type Condition = '*' | readonly EntityTag[];

const tags = new WeakMap<object, string>();

/**
 * The strong entity tag of a resource's representation: a digest (128 bits of SHA-256) of its JSON
 * with sorted keys. It changes whenever the representation changes — whatever changed it: a PATCH,
 * an order moving the pet's status, a release adding a field — and two representations with the
 * same data share it, as RFC 9110 §8.8.1 defines a strong validator. Tags of frozen objects (the
 * engines' read caches hand those out) are remembered.
 */
export function entityTag(resource: object): string {
  let tag = tags.get(resource);
  if (tag === undefined) {
    tag = `"${hash('sha256', canonicalJson(resource), 'base64url').slice(0, 22)}"`;
    if (Object.isFrozen(resource)) tags.set(resource, tag);
  }
  return tag;
}

// One list element: an optional entity-tag (W/ prefix, quoted etagc*) between optional white
// space, then a comma or the end. Empty elements (", ,") are allowed, as RFC 9110 §5.6.1 asks.
const ELEMENT = /[ \t]*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(?:,|$)/y;

/**
 * Parses an If-Match or If-None-Match field value; undefined when the request has none. A value
 * that is neither `*` nor a list of entity tags (an unquoted tag, say) is refused with 400 rather
 * than read as something it does not say.
 */
export function parseCondition(value: string | undefined, field: 'If-Match' | 'If-None-Match'): Condition | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '*') return '*';
  const list: EntityTag[] = [];
  for (let i = 0; i < value.length; ) {
    ELEMENT.lastIndex = i;
    const m = ELEMENT.exec(value);
    if (m === null || ELEMENT.lastIndex === i) return invalid(field);
    if (m[2] !== undefined) list.push({ opaque: m[2], weak: m[1] !== undefined });
    i = ELEMENT.lastIndex;
  }
  // An empty list (`If-Match: ,`) is valid syntax; it names no tag, so no tag matches it.
  return list;
}

function invalid(field: string): never {
  throw new AppError('validation_failed', `header "${field}" must be * or a comma-separated list of entity tags such as "xyz" or W/"xyz"`);
}

/**
 * If-Match (RFC 9110 §13.1.1): true when `*` (the resource exists) or when a listed tag equals
 * `current` by the strong comparison — a weak tag (W/"…") never matches.
 */
export function ifMatchPasses(condition: Condition, current: string): boolean {
  return condition === '*' || condition.some((t) => !t.weak && `"${t.opaque}"` === current);
}

/**
 * If-None-Match (RFC 9110 §13.1.2): false when `*` or when a listed tag equals `current` by the
 * weak comparison (W/"x" matches "x"), i.e. when the client's copy is current.
 */
export function ifNoneMatchPasses(condition: Condition, current: string): boolean {
  return !(condition === '*' || condition.some((t) => `"${t.opaque}"` === current));
}

/**
 * If-Match, evaluated by a workflow against the resource as its transaction has locked it: absent,
 * it holds; otherwise one listed tag must be the resource's current strong entity tag (or `*`).
 */
export function assertIfMatch(what: string, ifMatch: Condition | undefined, current: object): void {
  if (ifMatch === undefined || ifMatchPasses(ifMatch, entityTag(current))) return;
  throw new AppError('precondition_failed', `If-Match names none of the current entity tags of ${what}; nothing was changed (GET it for its current ETag)`);
}
