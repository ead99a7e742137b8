import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createApiKey, parseScopes } from '../keys/key.service.ts';
import { DEFAULT_SCOPES, SCOPES, type Scope } from '../keys/key.types.ts';
import { openStorage } from '../storage/open.ts';
import type { Storage } from '../storage/storage.ts';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const USAGE = `usage: petstore <command>

  migrate                               apply pending database migrations
  keys create --name NAME [--scopes S]  create an API key (printed once); scopes: comma-separated
                                        from ${SCOPES.join(',')}
                                        (default ${DEFAULT_SCOPES.join(',')})
  keys list                             list keys (no secrets)
  keys revoke ID                        revoke a key; refused from the next request on
  categories list                       list categories
  categories add NAME                   add a category
  openapi [--out FILE]                  print (or write) the OpenAPI document

Reads DATABASE_URL like the service (default sqlite:data/petstore.db).
To run the service: npm start`;

class UsageError extends Error {}

/** Runs one CLI command; returns the exit code. Never calls process.exit (tests call this). */
export async function runCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { name: { type: 'string' }, scopes: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, sub, arg] = positionals;
  if (values.help || command === undefined || command === 'help') {
    io.out(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const config = loadConfig(env);
  if (command === 'openapi') {
    const storage = await openStorage({ engine: 'sqlite', path: ':memory:' });
    const app = await buildApp({ config, storage });
    await app.ready();
    const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
    await app.close();
    await storage.close();
    if (values.out) await writeFile(values.out, text);
    else io.out(text.trimEnd());
    return 0;
  }

  const storage = await openStorage(config.database); // opening applies pending migrations
  try {
    return await run(storage, command, sub, arg, values, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`petstore: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  } finally {
    await storage.close();
  }
}

async function run(storage: Storage, command: string, sub: string | undefined, arg: string | undefined, values: { name?: string; scopes?: string }, io: CliIo): Promise<number> {
  if (command === 'migrate') {
    io.out(`migrations applied (${storage.engine})`);
    return 0;
  }
  if (command === 'keys' && sub === 'create') {
    if (!values.name?.trim()) throw new UsageError('keys create needs --name NAME');
    let scopes: Scope[];
    try {
      scopes = parseScopes(values.scopes);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const { key, info } = await createApiKey(storage.apiKeys, values.name.trim(), scopes);
    io.out(`created key ${info.id} "${info.name}" (${info.scopes.join(',')}). It is shown only this once:\n${key}`);
    return 0;
  }
  if (command === 'keys' && sub === 'list') {
    const keys = await storage.apiKeys.list();
    if (keys.length === 0) io.out('no keys');
    for (const k of keys) io.out(`${k.id}\t${k.prefix}…\t${k.name}\t${k.scopes.join(',')}\tcreated ${k.createdAt}\t${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}`);
    return 0;
  }
  if (command === 'keys' && sub === 'revoke') {
    if (arg === undefined || !/^\d+$/.test(arg)) throw new UsageError('keys revoke needs the numeric key id (see keys list)');
    const revoked = await storage.apiKeys.revoke(Number(arg), new Date());
    if (!revoked) {
      io.err(`petstore: no active key with id ${arg}`);
      return 1;
    }
    io.out(`key ${arg} revoked`);
    return 0;
  }
  if (command === 'categories' && sub === 'list') {
    for (const c of await storage.categories.list()) io.out(`${c.id}\t${c.name}`);
    return 0;
  }
  if (command === 'categories' && sub === 'add') {
    const name = arg?.trim();
    if (!name || name.length > 100) throw new UsageError('categories add needs a NAME of 1–100 characters');
    try {
      const c = await storage.categories.create(name, { now: new Date() });
      io.out(`created category ${c.id} "${c.name}"`);
      return 0;
    } catch (err) {
      io.err(`petstore: ${(err as Error).message}`);
      return 1;
    }
  }
  throw new UsageError(`unknown command: ${[command, sub].filter(Boolean).join(' ')}`);
}
