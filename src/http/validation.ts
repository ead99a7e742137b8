import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { TEXT_PATTERN } from '../schemas.ts';

// ajv-formats is CommonJS; under Node's ESM loader its default export is the function itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Two validators: query strings and path parameters arrive as text, so they are coerced to the
 * schema's types ("20" → 20); bodies are JSON and are never coerced ("1" is not a categoryId).
 * Neither strips unknown properties: schemas say additionalProperties:false and we reject.
 */
export function buildValidatorCompiler(sharedSchemas: readonly object[]): FastifySchemaCompiler<unknown> {
  const make = (coerceTypes: boolean) => {
    const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: true, strictTypes: false });
    addFormats(ajv);
    ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
    ajv.addKeyword('example');
    for (const s of sharedSchemas) ajv.addSchema(s);
    return ajv;
  };
  const text = make(true);
  const json = make(false);
  return ({ schema, httpPart }) => (httpPart === 'body' ? json : text).compile(schema as object) as ValidateFunction;
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
  const field = e.instancePath.split('/').filter(Boolean).join('.');
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
      return `${subject} must be ${p.type === 'object' && field === '' ? 'a JSON object' : `of type ${p.type}`}`;
    case 'minLength':
      return `${subject} must be at least ${p.limit} character${p.limit === 1 ? '' : 's'} long`;
    case 'maxLength':
      return `${subject} must be at most ${p.limit} characters long`;
    case 'pattern':
      return p.pattern === TEXT_PATTERN ? `${subject} must not be blank nor contain the NUL character (U+0000)` : `${subject} must match ${p.pattern}`;
    case 'enum':
      return `${subject} must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
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
