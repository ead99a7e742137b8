import { readFile } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.ts';
import { GUIDES } from '../../guide.ts';

/** One response of the Scalar plugin, kept: the page and the bundle are the same every time. */
interface Asset {
  readonly contentType: string;
  readonly body: string;
}

const SCRIPT = 'js/scalar.js';

/**
 * The interactive API reference (Scalar), public, outside /v1. Everything the page loads comes
 * from this service: the HTML, the Scalar bundle (shipped inside the npm package and served at
 * `<path>/js/scalar.js`) and the document, read from `/v1/openapi.json` so the page and the
 * published document can never disagree. Scalar's defaults that reach other hosts are switched
 * off: web fonts from fonts.scalar.com (the page uses system fonts), telemetry, the request proxy
 * at proxy.scalar.com, the hosted "ask AI" agent and the MCP generator. A Content-Security-Policy makes the browser
 * enforce it: only this origin, plus the configured API servers for "Test request".
 *
 * `@scalar/fastify-api-reference` inlines its 4 MB bundle in its module: importing it costs
 * tens of MiB of memory. So it is imported on the first request for the page, not at start-up: that
 * request registers the plugin on a private Fastify instance, takes the page and the bundle from
 * it once, and this app serves them from then on — the plugin's own bytes and content types.
 * The guides the document points to (docs/api.md, docs/events.md) are served beside the page as
 * Markdown text, each read once when first asked for.
 */
export const docsPlugin = fp(docs, { name: 'docs', dependencies: ['error-handler', 'telemetry', 'method-not-allowed'] });

async function docs(app: FastifyInstance, { config, path }: { readonly config: Config; readonly path: `/${string}` }): Promise<void> {
  const csp = contentSecurityPolicy(config);
  let assets: Promise<Map<string, Asset>> | undefined;
  const load = () => {
    assets ??= renderWithPlugin(path).catch((err: unknown) => {
      assets = undefined; // a failed load is retried by the next request
      throw err;
    });
    return assets;
  };
  const serve = (name: string) => async (_request: FastifyRequest, reply: FastifyReply) => {
    const asset = (await load()).get(name)!;
    return reply.header('content-type', asset.contentType).send(asset.body);
  };
  const common = {
    schema: { hide: true },
    logLevel: 'warn',
    onRequest: async (_request: FastifyRequest, reply: FastifyReply) => {
      reply.header('content-security-policy', csp);
    },
  } as const;
  // What the plugin does for the bare prefix (Fastify does not ignore trailing slashes here).
  app.get(path, { ...common }, async (request, reply) => reply.redirect(`${new URL(request.url, `${request.protocol}://${request.hostname}`).pathname}/`, 301));
  app.get(`${path}/`, { ...common }, serve('page'));
  app.get(`${path}/${SCRIPT}`, { ...common }, serve('script'));
  for (const [name, file] of Object.entries(GUIDES)) {
    let text: Promise<string> | undefined;
    app.get(`${path}/${name}`, { ...common }, async (_request, reply) => {
      text ??= readFile(file, 'utf8').catch((err: unknown) => {
        text = undefined; // a failed read is retried by the next request
        throw err;
      });
      return reply.type('text/markdown; charset=utf-8').send(await text);
    });
  }
}

async function renderWithPlugin(path: `/${string}`): Promise<Map<string, Asset>> {
  const [{ default: Fastify }, { default: scalar }] = await Promise.all([import('fastify'), import('@scalar/fastify-api-reference')]);
  const scratch = Fastify({ logger: false });
  try {
    await scratch.register(scalar, {
      routePrefix: path,
      configuration: {
        pageTitle: 'Pet Store API reference',
        // Relative to the page (`<path>/`), so it also works behind a proxy that adds a path prefix.
        url: `${'../'.repeat(path.split('/').length - 1)}v1/openapi.json`,
        withDefaultFonts: false,
        telemetry: false,
        proxyUrl: '',
        agent: { disabled: true },
        mcp: { disabled: true },
        showDeveloperTools: 'never',
        // The "Open API Client" button links to client.scalar.com with this document's URL.
        hideClientButton: true,
        defaultOpenAllTags: true,
        operationTitleSource: 'summary',
        documentDownloadType: 'json',
      },
    });
    const assets = new Map<string, Asset>();
    for (const [name, url] of [
      ['page', `${path}/`],
      ['script', `${path}/${SCRIPT}`],
    ] as const) {
      const res = await scratch.inject({ method: 'GET', url });
      if (res.statusCode !== 200) throw new Error(`@scalar/fastify-api-reference answered ${res.statusCode} for ${url}`);
      assets.set(name, { contentType: String(res.headers['content-type']), body: res.body });
    }
    return assets;
  } finally {
    await scratch.close();
  }
}

function contentSecurityPolicy(config: Config): string {
  // The bundle injects its stylesheet and the page initialises Scalar in an inline script.
  const apiOrigins = [config.publicBaseUrl, config.stagingBaseUrl].filter((u) => u !== '').map((u) => new URL(u).origin);
  return [
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${["'self'", ...new Set(apiOrigins)].join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
