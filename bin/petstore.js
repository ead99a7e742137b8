#!/usr/bin/env node
// Operator CLI entry. The project runs TypeScript directly, which needs Node.js >= 24;
// inside the checkout `npx petstore` finds the project's own Node 24 first on PATH.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(`petstore: Node.js >= 24 is required (this is ${process.version}); run it through npx or npm so the project's node is used\n`);
  process.exit(1);
}
await import('../src/cli/main.ts');
