// CLI process entry (bin/petstore.js): the CLI's only link to process state.
import { ConfigError } from '../config.ts';
import { runCli } from './cli.ts';

try {
  process.exitCode = await runCli(process.argv.slice(2), process.env, {
    out: (t) => process.stdout.write(`${t}\n`),
    err: (t) => process.stderr.write(`${t}\n`),
  });
} catch (err) {
  const message = err instanceof ConfigError ? `invalid configuration: ${err.message}` : (err as Error).message;
  process.stderr.write(`petstore: ${message}\n`);
  process.exitCode = err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
}
