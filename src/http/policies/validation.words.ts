// The rules of the request schemas in words for people: what a validation_failed's `errors` says
// beside the field (docs/api.md, "Errors"). The message beside them stays exact, for programmers.
import type { ErrorObject } from 'ajv';
import type { FieldError } from '../../errors.ts';
import { EVENT_ID_PATTERN } from '../../events/event.schemas.ts';
import { CURRENCY_PATTERN, TAG_PATTERN } from '../../pets/pet.schemas.ts';
import { HASH_PATTERN } from '../../photos/photo.schemas.ts';
import { CONDITION_PATTERN, CONDITION_WORDS } from '../../preconditions.ts';
import { IDEMPOTENCY_KEY_PATTERN, TEXT_PATTERN } from '../../schemas.ts';

/** Each pattern a request schema uses, as a person would be told it. */
const PATTERN_WORDS: Readonly<Record<string, string>> = {
  [TEXT_PATTERN]: 'must not be blank (spaces and invisible characters do not count) nor contain the NUL character',
  [TAG_PATTERN]: 'a tag is lowercase letters, digits and hyphens, up to 32',
  [CURRENCY_PATTERN]: 'a currency is three capital letters, such as EUR',
  [CONDITION_PATTERN]: CONDITION_WORDS,
  [IDEMPOTENCY_KEY_PATTERN]: 'must be 1 to 255 printable ASCII characters',
  [HASH_PATTERN]: 'must be 64 lowercase hexadecimal digits (a SHA-256)',
  [EVENT_ID_PATTERN]: 'an event id looks like evt_42',
};

const TYPE_WORDS: Readonly<Record<string, string>> = {
  integer: 'must be a whole number',
  number: 'must be a number',
  string: 'must be text',
  boolean: 'must be true or false',
  array: 'must be a list',
  object: 'must be an object with fields',
  null: 'must be null',
};

const PART: Readonly<Record<string, FieldError['in']>> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

const plural = (n: unknown, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A JSON pointer into a body as a client writes the field: `/tags/0` → `tags[0]`, `/price/amount` → `price.amount`. */
export function fieldName(pointer: string, child?: unknown): string {
  const segments = pointer.split('/').filter(Boolean);
  if (child !== undefined) segments.push(String(child));
  return segments
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((name, s) => (/^\d+$/.test(s) ? `${name}[${s}]` : name === '' ? s : `${name}.${s}`), '');
}

/** The first ajv error of a request part as the FieldError a client shows beside its input. */
export function fieldError(part: string, e: ErrorObject): FieldError {
  const p = e.params as Record<string, unknown>;
  const where = PART[part] ?? 'body';
  const child = e.keyword === 'required' ? p.missingProperty : e.keyword === 'additionalProperties' ? p.additionalProperty : undefined;
  let field = fieldName(e.instancePath, child);
  // Header names as HTTP writes them (`If-Match`); Fastify hands them over in lower case.
  if (where === 'header') field = field.replace(/(^|-)[a-z]/g, (c) => c.toUpperCase());
  return { in: where, field, rule: e.keyword, message: words(where, e.keyword, p) };
}

function words(where: FieldError['in'], keyword: string, p: Record<string, unknown>): string {
  switch (keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return where === 'body' ? 'is not a field of this form' : 'is not a parameter of this request';
    case 'type':
      return TYPE_WORDS[String(p.type)] ?? `must be of type ${p.type}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${plural(p.limit, 'character', 'characters')}`;
    case 'maxLength':
      return `must be at most ${plural(p.limit, 'character', 'characters')}`;
    case 'pattern':
      return PATTERN_WORDS[String(p.pattern)] ?? 'is not in the accepted form';
    case 'repeated':
      return 'must be given once';
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'minProperties':
      return 'change at least one field';
    case 'minItems':
      return `must have at least ${plural(p.limit, 'item', 'items')}`;
    case 'maxItems':
      return `must have at most ${plural(p.limit, 'item', 'items')}`;
    case 'uniqueItems':
      return 'lists the same item twice';
    case 'minimum':
      return `must be at least ${p.limit}`;
    case 'maximum':
      return `must be at most ${p.limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${p.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${p.limit}`;
    case 'format':
      if (p.format === 'int64') return `must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`;
      if (p.format === 'date-time') return 'must be a date and time with its offset, such as 2027-01-31T18:00:00Z';
      if (p.format === 'uri') return 'must be a whole web address such as https://example.com/hooks';
      return `must be a valid ${p.format}`;
    default:
      return 'is not valid';
  }
}
