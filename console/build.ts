// Builds the console into console/dist: one JavaScript and one CSS file named by their content hash,
// the page that loads them, and a Brotli and a gzip copy of each, which the service sends to a
// browser that takes them (src/http/ops/console.ts). Run by the root package's `prepare` script, so
// `npm install` / `npm ci` leave a built console; nothing built is committed.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = import.meta.dirname;
const out = join(here, 'dist');

await rm(out, { recursive: true, force: true });
const result = await build({
  entryPoints: [join(here, 'src/main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome111', 'firefox114', 'safari16.4'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  // The client's TypeScript source, bundled as it is: the console needs no separately built client.
  alias: { '@petstore/client': join(here, '../clients/typescript/src/index.ts') },
  entryNames: '[name]-[hash]',
  outdir: out,
  metafile: true,
  legalComments: 'eof',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((f) => basename(f));
const script = outputs.find((f) => f.endsWith('.js'));
const style = outputs.find((f) => f.endsWith('.css'));
if (!script || !style) throw new Error(`console build: expected one .js and one .css output, got ${outputs.join(', ')}`);

// No inline script or style: the Content-Security-Policy refuses both. The files are named relative to
// the page, and a <base> is refused (base-uri 'none'): an animal's page, `/console/pets/{id}`, two
// levels down, is the same page with its names one level up (`pet.html`).
const page = (up: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Pet Store console</title>
<link rel="icon" href="${up}icon.svg">
<link rel="stylesheet" href="${up}${style}">
<script type="module" src="${up}${script}"></script>
</head>
<body>
<div id="app"><noscript>The Pet Store console needs JavaScript.</noscript></div>
</body>
</html>
`;
await writeFile(join(out, 'index.html'), page(''));
await writeFile(join(out, 'pet.html'), page('../'));
// The tab's icon: a file of this origin (the policy refuses data: URLs), so the browser asks for no /favicon.ico.
await writeFile(
  join(out, 'icon.svg'),
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#14325c"/><circle cx="16" cy="20" r="6" fill="#fff"/><circle cx="8" cy="12" r="3" fill="#fff"/><circle cx="13" cy="7" r="3" fill="#fff"/><circle cx="19" cy="7" r="3" fill="#fff"/><circle cx="24" cy="12" r="3" fill="#fff"/></svg>\n',
);

for (const name of ['index.html', 'pet.html', 'icon.svg', script, style]) {
  const body = await readFile(join(out, name));
  await writeFile(join(out, `${name}.br`), brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  await writeFile(join(out, `${name}.gz`), gzipSync(body, { level: 9 }));
}
process.stdout.write(`console built: ${script}, ${style}\n`);
