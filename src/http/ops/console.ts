import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.ts';

/** Where `npm install` builds the console (console/build.ts, run by the root `prepare` script). */
export const CONSOLE_DIST = resolve(import.meta.dirname, '../../../console/dist');

/**
 * The store console (console/, issue 25): a browser client of the public API, served here as the
 * files its build wrote. Public, like /docs: the page asks for an API key and sends it to /v1 only.
 * Everything it loads comes from this service, and the Content-Security-Policy makes the browser
 * hold it to that: no inline script or style, no other origin, no framing.
 */
export const consolePlugin = fp(consoleRoutes, { name: 'console', dependencies: ['error-handler', 'telemetry', 'method-not-allowed'] });

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};
/** Pre-compressed copies the build wrote, in the order the service prefers them. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;
type Encoding = (typeof ENCODINGS)[number]['name'] | 'identity';

interface Asset {
  readonly type: string;
  readonly cacheControl: string;
  readonly etag: string;
  readonly bodies: ReadonlyMap<Encoding, Buffer>;
}

/** The built files by name; undefined when the console was not built. */
export async function loadConsole(dir: string): Promise<Map<string, Asset> | undefined> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  const assets = new Map<string, Asset>();
  for (const name of names) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue; // the compressed copies, read with their file below
    const identity = await readFile(join(dir, name));
    const bodies = new Map<Encoding, Buffer>([['identity', identity]]);
    for (const { name: encoding, suffix } of ENCODINGS) {
      const copy = await readFile(join(dir, name + suffix)).catch(() => undefined);
      if (copy) bodies.set(encoding, copy);
    }
    // The page names the scripts and styles by their content hash, so those never change: a browser
    // keeps them for a year. The page itself is checked on every load (a new build names new files).
    const cacheControl = name.endsWith('.html') || name === 'icon.svg' ? 'no-cache' : 'public, max-age=31536000, immutable';
    const etag = createHash('sha256').update(identity).digest('base64url').slice(0, 22);
    assets.set(name, { type, cacheControl, etag, bodies });
  }
  return assets.has('index.html') ? assets : undefined;
}

/** The best encoding the request accepts (RFC 9110 §12.5.3: q=0 refuses one) among those the asset has. */
export function chooseEncoding(accept: string | undefined, available: ReadonlyMap<Encoding, Buffer>): Encoding {
  const weights = new Map<string, number>();
  for (const part of (accept ?? '').split(',')) {
    const [token = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (token) weights.set(token, q === undefined ? 1 : Number(q));
  }
  const weight = (name: string) => weights.get(name) ?? weights.get('*') ?? 0;
  let best: Encoding = 'identity';
  let bestWeight = 0;
  for (const { name } of ENCODINGS) {
    if (available.has(name) && weight(name) > bestWeight) {
      best = name;
      bestWeight = weight(name);
    }
  }
  return best;
}

async function consoleRoutes(app: FastifyInstance, { path, dir }: { readonly path: `/${string}`; readonly dir?: string | undefined }): Promise<void> {
  const assets = await loadConsole(dir ?? CONSOLE_DIST);
  const common = {
    config: { public: true },
    schema: { hide: true },
    logLevel: 'warn',
    onRequest: async (_request: FastifyRequest, reply: FastifyReply) => {
      reply.header('content-security-policy', CONSOLE_CSP);
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('cross-origin-opener-policy', 'same-origin');
    },
  } as const;
  const serve = async (name: string, request: FastifyRequest, reply: FastifyReply) => {
    if (assets === undefined) throw new AppError('service_unavailable', 'the console is not built: run `npm install` (its prepare script builds console/dist)');
    const asset = assets.get(name);
    if (asset === undefined) throw new AppError('not_found', `${path}/${name} does not exist`);
    const encoding = chooseEncoding(request.headers['accept-encoding'], asset.bodies);
    const etag = `"${asset.etag}${encoding === 'identity' ? '' : `-${encoding}`}"`;
    reply.header('vary', 'accept-encoding').header('cache-control', asset.cacheControl).header('etag', etag).type(asset.type);
    if (request.headers['if-none-match']?.split(/\s*,\s*/).includes(etag)) return reply.code(304).send();
    if (encoding !== 'identity') reply.header('content-encoding', encoding);
    return reply.send(asset.bodies.get(encoding));
  };
  // The page's files are named relative to `<path>/`, so the bare path redirects there (like /docs).
  app.get(path, common, async (request, reply) => reply.redirect(`${new URL(request.url, 'http://x').pathname}/`, 301));
  app.get(`${path}/`, common, (request, reply) => serve('index.html', request, reply));
  // An animal's page (`/console/pets/12`): the console's page, its files named one level up (console/build.ts).
  app.get(`${path}/pets/:petId`, common, (request, reply) => serve('pet.html', request, reply));
  app.get<{ Params: { file: string } }>(`${path}/:file`, common, (request, reply) => serve(request.params.file, request, reply));
}
