import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';

/**
 * The interactive API reference (Scalar), public, outside /v1. Everything the page loads comes
 * from this service: the HTML, the Scalar bundle (shipped inside the npm package and served at
 * `<path>/js/scalar.js`) and the document, read from `/v1/openapi.json` so the page and the
 * published document can never disagree. Scalar's defaults that reach other hosts are switched
 * off: web fonts from fonts.scalar.com (the page uses system fonts), telemetry, the request proxy
 * at proxy.scalar.com, the hosted "ask AI" agent and the MCP generator. A Content-Security-Policy makes the browser
 * enforce it: only this origin, plus the configured API servers for "Test request".
 */
export async function registerDocs(app: FastifyInstance, config: Config, path: `/${string}`): Promise<void> {
  const csp = contentSecurityPolicy(config);
  await app.register(scalar, {
    routePrefix: path,
    logLevel: 'warn',
    hooks: {
      onRequest: async (_request, reply) => {
        reply.header('content-security-policy', csp);
      },
    },
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
