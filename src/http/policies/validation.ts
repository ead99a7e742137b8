import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import fp from 'fastify-plugin';
import { TEXT_PATTERN } from '../../schemas.ts';
import { CONDITION_PATTERN, CONDITION_RULE } from '../../preconditions.ts';
import { type AppError, invalid } from '../../errors.ts';
import { fieldError } from './validation.words.ts';

// ajv-formats is CommonJS; under Node's ESM loader its default export is the function itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * An integer in a path or query parameter is written as an integer: decimal digits, no sign, no
 * leading zeros, no exponent, no spaces. Anything else (`0x3`, `0o7`, `+1`, `007`, `1e3`,
 * `Infinity`, ``) stays a string and fails the schema's `type: integer`: no input is accepted
 * under another spelling, and nothing reaches a handler as a number it did not write.
 */
const INTEGER_TEXT = /^(?:0|[1-9][0-9]*)$/;
// Longer than any safe integer (2^53 − 1 has 16 digits): refused by the range, not converted.
const MAX_INTEGER_DIGITS = 16;

interface ObjectSchema {
  readonly properties?: Record<string, { type?: unknown; maximum?: number; items?: { type?: unknown; maximum?: number } }>;
}

const compilers = new WeakMap<readonly object[], FastifySchemaCompiler<unknown>>();

/**
 * One ajv instance, which coerces nothing: bodies are JSON, whose types are the client's; path
 * and query parameters arrive as text, and only their integer properties are converted — by the
 * grammar above, before validation (withTextRules). It strips no unknown property either:
 * schemas say additionalProperties:false and we reject.
 *
 * A validator is a function of its schema, its part and the shared schemas, so one compiler per
 * set of shared schemas keeps each one by the JSON of its schema and part: every app of a process
 * (the tests build hundreds) reuses what the first compiled.
 */
export function buildValidatorCompiler(sharedSchemas: readonly object[]): FastifySchemaCompiler<unknown> {
  const existing = compilers.get(sharedSchemas);
  if (existing) return existing;
  const ajv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, strict: true, strictTypes: false });
  addFormats(ajv);
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addKeyword('example');
  for (const s of sharedSchemas) ajv.addSchema(s);
  const compiled = new Map<string, ValidateFunction>();
  const compiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
    const text = httpPart === 'querystring' || httpPart === 'params';
    const key = JSON.stringify([text, schema]);
    const validate = compiled.get(key) ?? (text ? withTextRules(ajv.compile(schema as object), schema as ObjectSchema) : ajv.compile(schema as object));
    compiled.set(key, validate);
    return validate;
  };
  compilers.set(sharedSchemas, compiler);
  return compiler;
}

/**
 * Wraps a text part's validator: a parameter given twice is refused by name (the query parser
 * makes it a list), and integer properties written as integers become numbers first.
 */
function withTextRules(validate: ValidateFunction, schema: ObjectSchema): ValidateFunction {
  const integers = Object.entries(schema.properties ?? {}).filter(([, p]) => p.type === 'integer');
  // A list parameter (`tag=a&tag=b`) may be repeated: given once, it is a list of one.
  const lists = new Set(Object.entries(schema.properties ?? {}).flatMap(([name, p]) => (p.type === 'array' ? [name] : [])));
  // A list of integers (`id=3&id=7`): each item under the same grammar as an integer parameter.
  const integerLists = Object.entries(schema.properties ?? {}).flatMap(([name, p]) =>
    p.type === 'array' && p.items?.type === 'integer' ? [[name, p.items] as const] : [],
  );
  for (const [name, p] of [...integers, ...integerLists]) {
    // A written integer too long to convert is refused by the range: there must be one.
    if (typeof p.maximum !== 'number') throw new Error(`parameter "${name}": an integer parameter needs a maximum`);
  }
  const refuse = (keyword: string, name: string, params: Record<string, unknown>) => {
    wrapped.errors = [{ keyword, instancePath: `/${name}`, schemaPath: `#/properties/${name}`, params }];
    return false;
  };
  const wrapped = ((data: Record<string, unknown> | null) => {
    if (data !== null && typeof data === 'object') {
      for (const name in data) {
        if (lists.has(name)) {
          if (!Array.isArray(data[name])) data[name] = [data[name]];
        } else if (Array.isArray(data[name])) return refuse('repeated', name, {});
      }
      for (const [name, p] of integers) {
        const text = data[name];
        if (typeof text !== 'string' || !INTEGER_TEXT.test(text)) continue;
        if (text.length > MAX_INTEGER_DIGITS) return refuse('maximum', name, { comparison: '<=', limit: p.maximum });
        data[name] = Number(text);
      }
      for (const [name, p] of integerLists) {
        const items = data[name];
        if (!Array.isArray(items)) continue;
        for (let i = 0; i < items.length; i++) {
          const text = items[i];
          if (typeof text !== 'string' || !INTEGER_TEXT.test(text)) continue;
          if (text.length > MAX_INTEGER_DIGITS) return refuse('maximum', `${name}/${i}`, { comparison: '<=', limit: p.maximum });
          items[i] = Number(text);
        }
      }
    }
    const valid = validate(data);
    wrapped.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return wrapped;
}

// RFC 3339 §5.6 date-time with its offset, as written: ajv-formats would also take "+0100",
// "+01" or a space for the "T". Leap seconds (":60") are refused: no JavaScript Date holds one.
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[Tt]([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

function isDateTime(text: string): boolean {
  const m = DATE_TIME.exec(text);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // The day must exist in its month (Date.UTC would roll 02-30 over into March).
  return month >= 1 && month <= 12 && day >= 1 && new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day && !Number.isNaN(Date.parse(text));
}

/**
 * The shared schemas (referenced by $id) and the validator compiler that knows them; a route takes
 * the compiler set when it is registered.
 */
export const validationPlugin = fp(validation, { name: 'validation' });

async function validation(app: FastifyInstance, { schemas }: { readonly schemas: readonly object[] }): Promise<void> {
  for (const schema of schemas) app.addSchema(schema);
  app.setValidatorCompiler(buildValidatorCompiler(schemas));
}

/**
 * Validates `value` against a body schema outside a request — the CLI's input, under the API's
 * own rules — and returns the message a request would get, naming fields after `label`.
 */
export function checkAgainst(sharedSchemas: readonly object[], schema: object, value: unknown, label: string): string | undefined {
  const validate = buildValidatorCompiler(sharedSchemas)({ schema, httpPart: 'body', method: 'POST', url: '' }) as ValidateFunction;
  return validate(value) ? undefined : describeValidationError(label, validate.errors ?? []);
}

/**
 * A body schema's validator outside a request — an import's rows (imports/), under the API's own
 * rules: the validation_failed error a request with `value` as its body gets, or undefined.
 */
export function bodyValidator(sharedSchemas: readonly object[], schema: object): (value: unknown) => AppError | undefined {
  const validate = buildValidatorCompiler(sharedSchemas)({ schema, httpPart: 'body', method: 'POST', url: '' }) as ValidateFunction;
  return (value) => {
    if (validate(value)) return undefined;
    const errors = validate.errors ?? [];
    return invalid(describeValidationError('body', errors), fieldError('body', errors[0]));
  };
}

const PART_LABEL: Record<string, string> = {
  body: 'body field',
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

/** Turns the first ajv error into a sentence naming the field and the rule broken. */
export function describeValidationError(part: string, errors: readonly ErrorObject[]): string {
  const e = errors[0];
  const label = PART_LABEL[part] ?? part;
  const path = e.instancePath.split('/').filter(Boolean).join('.');
  // Header names as HTTP writes them (`If-Match`); Fastify hands them over in lower case.
  const field = part === 'headers' ? path.replace(/(^|-)[a-z]/g, (c) => c.toUpperCase()) : path;
  const subject = field === '' ? (part === 'body' ? 'request body' : label) : `${label} "${field}"`;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const name = [field, p.missingProperty].filter(Boolean).join('.');
      return `${label} "${name}" is required`;
    }
    case 'additionalProperties': {
      const name = [field, p.additionalProperty].filter(Boolean).join('.');
      return part === 'body' ? `${label} "${name}" is not allowed (unknown field)` : `${label} "${name}" is not supported`;
    }
    case 'type':
      if (p.type === 'integer' && (part === 'querystring' || part === 'params'))
        return `${subject} must be an integer written in decimal digits, without sign, leading zeros or exponent`;
      return `${subject} must be ${p.type === 'object' && field === '' ? 'a JSON object' : `of type ${p.type}`}`;
    case 'minLength':
      return `${subject} must be at least ${p.limit} character${p.limit === 1 ? '' : 's'} long`;
    case 'maxLength':
      return `${subject} must be at most ${p.limit} characters long`;
    case 'pattern':
      if (p.pattern === TEXT_PATTERN)
        return `${subject} must not be blank nor contain the NUL character (U+0000); white space and invisible characters such as U+200B do not count as text`;
      return p.pattern === CONDITION_PATTERN ? `${subject} ${CONDITION_RULE}` : `${subject} must match ${p.pattern}`;
    case 'repeated':
      return `${subject} must be given once`;
    case 'enum':
      return `${subject} must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'minProperties':
      return `${subject} must set at least ${p.limit} field${p.limit === 1 ? '' : 's'}`;
    case 'minItems':
      return `${subject} must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `${subject} must have at most ${p.limit} item${p.limit === 1 ? '' : 's'}`;
    case 'uniqueItems':
      return `${subject} must not list the same item twice`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${subject} must be ${p.comparison} ${p.limit}`;
    case 'format':
      return p.format === 'int64' ? `${subject} must be an integer between 1 and ${Number.MAX_SAFE_INTEGER}` : `${subject} must be a valid ${p.format}`;
    default:
      return `${subject} ${e.message ?? 'is invalid'}`;
  }
}
