import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.ts';

/** Deepest object/array nesting a request body may have. */
export const MAX_JSON_DEPTH = 32;

/**
 * What is wrong with the structure of a JSON text, if anything this service refuses although
 * JSON.parse would take it: nesting deeper than `maxDepth` (objects and arrays), or a name that
 * occurs twice in one object (RFC 8259 §4 leaves the meaning to the receiver; JSON.parse keeps the
 * last, other parsers the first, so the body means different things to different readers).
 * One linear pass; brackets and quotes inside strings are skipped. Invalid JSON is left to the parser.
 */
export function jsonStructureProblem(text: string, maxDepth: number): AppError | undefined {
  // One entry per open container: the names seen so far in an object, undefined for an array.
  const open: (Set<string> | undefined)[] = [];
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
      names.add(name);
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (open.length >= maxDepth) return new AppError('bad_request', `request body nests objects or arrays deeper than ${maxDepth} levels`);
      open.push(c === 123 ? new Set() : undefined);
      expectName = c === 123;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      open.pop();
      expectName = false;
    } else if (c === 44 /* , */) {
      expectName = open[open.length - 1] !== undefined;
    }
  }
  return undefined;
}

const BOM = [0xef, 0xbb, 0xbf];

/**
 * Fastify's own JSON parser (prototype-poisoning checks included) behind the checks JSON.parse
 * does not make: the body is UTF-8 (RFC 8259 §8.1) without a byte-order mark, nests at most
 * MAX_JSON_DEPTH levels (refused in linear time before JSON.parse and validation recurse into
 * it), and names each member of an object once. A body that breaks them is refused with 400,
 * never read as something the client may not have meant.
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
    // A DELETE takes no body; clients that label every request JSON send an empty one with it.
    if (bytes.length === 0 && request.method === 'DELETE') {
      done(null, undefined);
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
