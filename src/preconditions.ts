// Entity tags and the conditional request fields that carry them (RFC 9110 §8.8.3, §13.1), in one
// place: routes set ETag and answer If-None-Match with them; workflows evaluate If-Match with them
// inside the write's transaction, against the row they locked.
import { hash } from 'node:crypto';
import { AppError, invalid } from './errors.ts';
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

// The grammar of If-Match and If-None-Match (RFC 9110 §13.1.1, §13.1.2): `*`, or a list (§5.6.1,
// empty elements allowed) of entity-tags (§8.8.3: an optional W/, then etagc* between double
// quotes; etagc is %x21 / %x23-7E / obs-text). The route header schemas carry it as their
// `pattern` (so the OpenAPI document states it and validation enforces it) and parseCondition
// checks it too. Each run of white space has one place to go, so matching stays linear.
const OWS = '[ \\t]*';
const ENTITY_TAG = '(?:W/)?"[\\x21\\x23-\\x7e\\x80-\\xff]*"';
export const CONDITION_PATTERN = `^${OWS}(?:\\*${OWS}|(?:${ENTITY_TAG}${OWS})?(?:,${OWS}(?:${ENTITY_TAG}${OWS})?)*)$`;
const CONDITION = new RegExp(CONDITION_PATTERN, 'u');
const TAG = /(W\/)?"([^"]*)"/g;

/** What a malformed If-Match or If-None-Match is told (after `header "If-Match"`). */
export const CONDITION_RULE = 'must be * or a comma-separated list of entity tags such as "xyz" or W/"xyz"';
/** CONDITION_RULE for people: what a validation_failed's `errors` says of a malformed condition. */
export const CONDITION_WORDS = 'must be * or the entity tags (ETag values) the service sent, in double quotes';

/**
 * Parses an If-Match or If-None-Match field value; undefined when the request has none. A value
 * that is neither `*` nor a list of entity tags (an unquoted tag, say) is refused with 400 rather
 * than read as something it does not say.
 */
export function parseCondition(value: string | undefined, field: 'If-Match' | 'If-None-Match'): Condition | undefined {
  if (value === undefined) return undefined;
  if (!CONDITION.test(value)) {
    throw invalid(`header "${field}" ${CONDITION_RULE}`, { in: 'header', field, rule: 'pattern', message: CONDITION_WORDS });
  }
  if (value.trim() === '*') return '*';
  // The value is a well-formed list, so its tags are exactly its quoted parts; an empty list
  // (`If-Match: ,`) names no tag, so no tag matches it.
  return Array.from(value.matchAll(TAG), (m) => ({ opaque: m[2], weak: m[1] !== undefined }));
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
