import { readFileSync } from 'node:fs';

/** The service's release, as its package.json names it (petstore_build_info reports it). */
export const SERVICE_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
