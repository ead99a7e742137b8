import { writeFile } from 'node:fs/promises';
import { actingAs } from '../activity/activity.context.ts';
import type { Actor } from '../activity/activity.schemas.ts';
import { parseArgs } from 'node:util';
import { buildApp, SHARED_SCHEMAS } from '../app.ts';
import { NewCategory } from '../categories/category.schemas.ts';
import { CategoryService } from '../categories/category.service.ts';
import { systemClock } from '../clock.ts';
import { loadConfig, type Config } from '../config.ts';
import { CursorCodec } from '../paging.ts';
import { PasswordHasher } from '../staff/staff.password.ts';
import { ROLES } from '../staff/staff.roles.ts';
import { NewStaff } from '../staff/staff.schemas.ts';
import { STAFF_OPERATOR, StaffService } from '../staff/staff.service.ts';
import { AppError } from '../errors.ts';
import { checkAgainst } from '../http/policies/validation.ts';
import { NewApiKey, type ApiKey } from '../keys/key.schemas.ts';
import { ALL_SCOPES, issueApiKey, parseScopes, revokeApiKey } from '../keys/key.service.ts';
import { DEFAULT_SCOPES, SCOPES, type Scope } from '../keys/key.types.ts';
import { openStorage } from '../storage/open.ts';
import type { Storage } from '../storage/storage.ts';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const USAGE = `usage: petstore <command>

  migrate                               apply pending database migrations
  keys create --name NAME [--scopes S] [--expires-at T] [--owner]
                                        create a top-level API key (printed once); scopes: comma-separated
                                        from ${SCOPES.join(',')}
                                        or ${ALL_SCOPES} (every scope; default ${DEFAULT_SCOPES.join(',')});
                                        T: RFC 3339, e.g. 2027-01-31T00:00:00Z; --owner: an owner key,
                                        which reads and revokes every key (others: only keys they made)
  keys list                             list keys (no secrets)
  keys revoke ID                        revoke a key and the keys it made; refused from the next request on
  staff create --email E --name N --role R
                                        invite a person (roles: ${ROLES.join(', ')}); prints their one-time
                                        link (72 h), with which they choose a password in the console
  staff list                            list the staff
  categories list                       list categories
  categories add NAME                   add a category
  openapi [--out FILE]                  print (or write) the OpenAPI document

Reads DATABASE_URL like the service (default sqlite:data/petstore.db).
To run the service: npm start`;

class UsageError extends Error {}

/** Runs one CLI command; returns the exit code. Never calls process.exit (tests call this). */
/** Who the CLI's writes are made by in the activity log: the operator at the machine, through no key and no session. */
export const CLI_ACTOR: Actor = Object.freeze({ type: 'service', id: null, name: 'petstore CLI' });

export function runCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  return actingAs(CLI_ACTOR, () => runCommand(argv, env, io));
}

async function runCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      'expires-at': { type: 'string' },
      owner: { type: 'boolean' },
      email: { type: 'string' },
      role: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
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
    return await run(storage, command, sub, arg, values, io, config);
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

interface Options {
  readonly name?: string;
  readonly scopes?: string;
  readonly 'expires-at'?: string;
  readonly owner?: boolean;
  readonly email?: string;
  readonly role?: string;
}

/** The CLI's input checked by the API's own request schema, so both refuse the same input alike. */
function check(schema: object, value: object, what: string): void {
  const problem = checkAgainst(SHARED_SCHEMAS, schema, value, what);
  if (problem !== undefined) throw new UsageError(problem);
}

async function run(
  storage: Storage,
  command: string,
  sub: string | undefined,
  arg: string | undefined,
  values: Options,
  io: CliIo,
  config: Config,
): Promise<number> {
  if (command === 'migrate') {
    io.out(`migrations applied (${storage.engine})`);
    return 0;
  }
  if (command === 'keys' && sub === 'create') {
    if (values.name === undefined) throw new UsageError('keys create needs --name NAME');
    let scopes: Scope[];
    try {
      scopes = parseScopes(values.scopes);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const input = { name: values.name, scopes, ...(values['expires-at'] === undefined ? {} : { expiresAt: values['expires-at'] }) };
    check(NewApiKey, input, 'key');
    // The operator holds every scope; an expiry in the past is refused like the API refuses it.
    const created = await refusal(io, () => issueApiKey(storage, input, { keyId: null, scopes: SCOPES }, systemClock.now(), { owner: values.owner }));
    if (created === undefined) return 1;
    const expiry = created.expiresAt ? `, expires ${created.expiresAt}` : '';
    const owner = created.owner ? ', owner' : '';
    io.out(`created key ${created.id} "${created.name}" (${created.scopes.join(',')}${expiry}${owner}). It is shown only this once:\n${created.key}`);
    return 0;
  }
  if (command === 'keys' && sub === 'list') {
    let keys = await storage.apiKeys.list({ limit: 100, afterId: 0 });
    if (keys.length === 0) io.out('no keys');
    for (; keys.length > 0; keys = await storage.apiKeys.list({ limit: 100, afterId: keys[keys.length - 1].id }))
      for (const k of keys)
        io.out(`${k.id}\t${k.prefix}…\t${k.name}\t${k.scopes.join(',')}\tcreated ${k.createdAt}\t${keyState(k, new Date())}\t${keyPlace(k)}`);
    return 0;
  }
  if (command === 'keys' && sub === 'revoke') {
    if (arg === undefined || !/^\d+$/.test(arg)) throw new UsageError('keys revoke needs the numeric key id (see keys list)');
    const revoked = await revokeApiKey(storage, Number(arg), { now: systemClock.now() }).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'not_found') return false;
      throw err;
    });
    if (!revoked) {
      io.err(`petstore: no active key with id ${arg}`);
      return 1;
    }
    io.out(`key ${arg} revoked`);
    return 0;
  }
  if (command === 'staff' && sub === 'create') {
    if (values.email === undefined || values.name === undefined || values.role === undefined)
      throw new UsageError('staff create needs --email E, --name N and --role R');
    const input = { name: values.name, email: values.email, role: values.role };
    check(NewStaff, input, 'person');
    const staff = new StaffService(storage, new CursorCodec(await storage.secret('cursor')), systemClock, new PasswordHasher());
    const invited = await refusal(io, () => staff.invite(input as NewStaff, STAFF_OPERATOR, consoleOrigin(config)));
    if (invited === undefined) return 1;
    const { staff: p, invitation } = invited;
    io.out(
      `invited person ${p.id} "${p.name}" <${p.email}> as ${p.role}. Hand them this one-time link (it works once, until ${invitation.expiresAt}); it is shown only this once:\n${invitation.url}`,
    );
    return 0;
  }
  if (command === 'staff' && sub === 'list') {
    let people = await storage.staff.list({ limit: 100, afterId: 0 });
    if (people.length === 0) io.out('no staff');
    for (; people.length > 0; people = await storage.staff.list({ limit: 100, afterId: people[people.length - 1].id }))
      for (const p of people) io.out(`${p.id}\t${p.email}\t${p.name}\t${p.role}\t${p.state}\tlast sign-in ${p.lastSignInAt ?? 'never'}`);
    return 0;
  }
  if (command === 'categories' && sub === 'list') {
    for (const c of await storage.categories.list()) io.out(`${c.id}\t${c.name}`);
    return 0;
  }
  if (command === 'categories' && sub === 'add') {
    if (arg === undefined) throw new UsageError('categories add needs a NAME');
    check(NewCategory, { name: arg }, 'category');
    const c = await refusal(io, () => new CategoryService(storage, systemClock).create(arg));
    if (c === undefined) return 1;
    io.out(`created category ${c.id} "${c.name}"`);
    return 0;
  }
  throw new UsageError(`unknown command: ${[command, sub].filter(Boolean).join(' ')}`);
}

/** Runs `work`; a refusal by the rules (AppError: a duplicate name, an expiry in the past) is printed, and undefined returned. */
async function refusal<T>(io: CliIo, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    io.err(`petstore: ${err.message} (${err.code})`);
    return undefined;
  }
}

/** owner, made by key N, or top-level. */
function keyPlace(k: ApiKey): string {
  if (k.owner) return 'owner';
  return k.parentId === null ? 'top-level' : `made by key ${k.parentId}`;
}

/** revoked …, expired …, active (until …) or active. */
function keyState(k: ApiKey, now: Date): string {
  if (k.revokedAt) return `revoked ${k.revokedAt}`;
  if (k.expiresAt === null) return 'active';
  return Date.parse(k.expiresAt) <= now.getTime() ? `expired ${k.expiresAt}` : `active until ${k.expiresAt}`;
}

/** The origin an invitation link opens: PUBLIC_BASE_URL's, else the address the service listens on. */
export function consoleOrigin(config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>): string {
  if (config.publicBaseUrl) return new URL(config.publicBaseUrl).origin;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}
