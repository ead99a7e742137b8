// Builds the package: dist/ (ES modules, for import and browsers) and dist/cjs/ (CommonJS, for
// require()), each with its .d.ts files, from a clean dist/. Run by `npm run build` (and so by npm pack).
// It runs the repository's TypeScript 7 by path: this package's own node_modules holds TypeScript 5
// (openapi-typescript's peer), whose tsc would shadow it in a package script.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) execFileSync(process.execPath, [TSC, '-p', project], { cwd: HERE, stdio: 'inherit' });
// The package is "type": "module"; this marks dist/cjs/*.js (and its .d.ts) as CommonJS for Node and TypeScript.
writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), '{ "type": "commonjs" }\n');
