import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.ts';

/** Deepest object/array nesting a request body may have. */
export const MAX_JSON_DEPTH = 32;

/**
 * What is wrong with the structure of a JSON text, if anything this service refuses although
 * JSON.parse would take it: nesting deeper than `maxDepth` (objects and arrays), a name that
 * occurs twice in one object (RFC 8259 §4 leaves the meaning to the receiver; JSON.parse keeps the
 * last, other parsers the first, so the body means different things to different readers), or a
 * member that would reach an object's prototype in JavaScript (`__proto__`, `constructor.prototype`),
 * or a string escaping half of a UTF-16 surrogate pair alone (`"\ud800"`: no character, RFC 8259 §8.2).
 * One linear pass; brackets and quotes inside strings are skipped. Invalid JSON is left to the parser.
 */
export function jsonStructureProblem(text: string, maxDepth: number): AppError | undefined {
  // One entry per open container: the names seen so far in an object, undefined for an array.
  const open: (Set<string> | undefined)[] = [];
  // Per open container, whether it is the value of a member named "constructor".
  const underConstructor: boolean[] = [];
  // The last member name read: a `{` or `[` inside an object always follows its own name.
  let lastName = '';
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) {
          escaped = true;
          if (text.charCodeAt(i + 1) === 117 /* u */) {
            // A UTF-16 surrogate escaped alone is no character: JSON.parse would keep it as is and
            // storage would turn it into U+FFFD — the body would not mean what it says.
            const unit = hex4(text, i + 2);
            if (unit >= 0xdc00 && unit <= 0xdfff) return loneSurrogate(unit);
            if (unit >= 0xd800 && unit <= 0xdbff) {
              const low = text.charCodeAt(i + 6) === 92 && text.charCodeAt(i + 7) === 117 ? hex4(text, i + 8) : Number.NaN;
              if (!(low >= 0xdc00 && low <= 0xdfff)) return loneSurrogate(unit);
              i += 6; // the low half's escape, read
            }
          }
          i++;
        } else if (d === 34) break;
      }
      if (!expectName) continue;
      expectName = false;
      const names = open[open.length - 1]!;
      let name = text.slice(start + 1, i);
      if (escaped) {
        try {
          name = JSON.parse(text.slice(start, i + 1)) as string;
        } catch {
          return undefined;
        }
      }
      if (names.has(name))
        return new AppError(
          'invalid_json',
          `request body is not valid JSON for this service: the name ${JSON.stringify(name.slice(0, 64))} occurs twice in one object`,
        );
      if (name === '__proto__' || (name === 'prototype' && underConstructor[underConstructor.length - 1])) return prototypeMember(name);
      names.add(name);
      lastName = name;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (open.length >= maxDepth) return new AppError('bad_request', `request body nests objects or arrays deeper than ${maxDepth} levels`);
      underConstructor.push(open[open.length - 1] !== undefined && lastName === 'constructor');
      open.push(c === 123 ? new Set() : undefined);
      expectName = c === 123;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      open.pop();
      underConstructor.pop();
      expectName = false;
    } else if (c === 44 /* , */) {
      expectName = open[open.length - 1] !== undefined;
    }
  }
  return undefined;
}

const hex4 = (text: string, at: number): number => (/^[0-9a-fA-F]{4}$/.test(text.slice(at, at + 4)) ? Number.parseInt(text.slice(at, at + 4), 16) : Number.NaN);

function loneSurrogate(unit: number): AppError {
  return new AppError(
    'invalid_json',
    `request body is not valid JSON for this service: the escape \\u${unit.toString(16)} is half of a UTF-16 surrogate pair without its other half, so it names no character`,
  );
}

/**
 * No field of this API is named so; in JavaScript such a member reaches the prototype of every
 * object (prototype poisoning) in code that copies or merges the body. Refused by name, with the
 * reason, where Fastify's parser would only say "not valid JSON".
 */
function prototypeMember(name: string): AppError {
  const member = name === '__proto__' ? '"__proto__"' : '"prototype" inside a member named "constructor"';
  return new AppError(
    'invalid_json',
    `request body has a member named ${member}, which this service refuses: it would set an object's prototype in JavaScript (prototype poisoning)`,
  );
}

/**
 * The request body's content coding, if it has one other than identity (RFC 9110 §8.4): none is
 * accepted (decided: bodies are small JSON under BODY_LIMIT_BYTES, compression would save little,
 * and decompressing would let a few kilobytes of gzip expand past the limit before it is checked).
 */
function contentCodingProblem(value: string | undefined): AppError | undefined {
  if (value === undefined) return undefined;
  const codings = value.split(',').map((c) => c.trim().toLowerCase());
  if (codings.every((c) => c === '' || c === 'identity')) return undefined;
  // RFC 9110 §15.5.16: a 415 caused by a content coding says in Accept-Encoding which are accepted.
  return new AppError(
    'unsupported_media_type',
    `request body is sent with Content-Encoding ${JSON.stringify(value.slice(0, 64))}; this service takes bodies without a content coding only`,
    { 'accept-encoding': 'identity' },
  );
}

const BOM = [0xef, 0xbb, 0xbf];

/**
 * Fastify's own JSON parser (prototype-poisoning checks included) behind the checks JSON.parse
 * does not make: the body has no content coding (415), is UTF-8 (RFC 8259 §8.1) without a
 * byte-order mark, nests at most MAX_JSON_DEPTH levels (refused in linear time before JSON.parse
 * and validation recurse into it), names each member of an object once and none `__proto__`.
 * A body that breaks them is refused with 400, never read as something the client may not have
 * meant. An empty body of an operation that takes none is no body.
 */
export const jsonBodyPlugin = fp(jsonBody, { name: 'json-body' });

async function jsonBody(app: FastifyInstance): Promise<void> {
  // The API speaks JSON only: Fastify's built-in text/plain parser would let other bodies through.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  addJsonParser(app, 'application/json');
}

/**
 * `application/merge-patch+json` (RFC 7396) — JSON, parsed the same way — for the routes of an
 * encapsulated plugin only: the PATCH routes that take a merge patch. Elsewhere it stays 415.
 */
export function registerMergePatchParser(app: FastifyInstance): void {
  addJsonParser(app, 'application/merge-patch+json');
}

function addJsonParser(app: FastifyInstance, contentType: string): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(contentType, { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    // An operation that takes no body (its route has no body schema: the DELETEs, rotate-secret,
    // retry) reads an empty one as none: clients that label every request JSON send one with it.
    if (bytes.length === 0 && request.routeOptions.schema?.body === undefined) {
      done(null, undefined);
      return;
    }
    const coding = contentCodingProblem(request.headers['content-encoding']);
    if (coding !== undefined) {
      done(coding, undefined);
      return;
    }
    if (bytes.length >= 3 && bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2]) {
      done(new AppError('invalid_json', 'request body starts with a byte-order mark; send UTF-8 JSON without one'), undefined);
      return;
    }
    if (!isUtf8(bytes)) {
      done(new AppError('invalid_json', 'request body is not valid UTF-8'), undefined);
      return;
    }
    const text = bytes.toString('utf8');
    const problem = jsonStructureProblem(text, MAX_JSON_DEPTH);
    if (problem !== undefined) {
      done(problem, undefined);
      return;
    }
    parse(request, text, done);
  });
}
