// Where the first-run key is shown (issue 26 item 3): to the operator only, never on stdout, which
// carries the JSON log lines that log collectors keep. On a terminal it is printed on stderr;
// otherwise (a service manager, a container, a pipe) it goes into a file only this user can read.
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { DatabaseConfig } from './config.ts';

/** stderr as far as this module needs it. */
export interface OperatorStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export const FIRST_RUN_KEY_FILE = 'first-run-key';

/**
 * The file the first-run key is written to when stderr is not a terminal: beside the SQLite
 * database (`data/first-run-key` by default); with PostgreSQL in the working directory; with an
 * in-memory database, whose key dies with the process, in a new private folder (mode 0700) under
 * the system's temporary directory, so that a throw-away run leaves nothing in the working
 * directory. Absolute, so the line that names it can be pasted anywhere.
 */
export async function firstRunKeyFile(database: DatabaseConfig, cwd: string, temp: string = tmpdir()): Promise<string> {
  if (database.engine === 'sqlite' && database.path === ':memory:') {
    return join(await mkdtemp(join(temp, 'petstore-first-run-')), FIRST_RUN_KEY_FILE);
  }
  const folder = database.engine === 'sqlite' ? dirname(resolve(cwd, database.path)) : cwd;
  return resolve(folder, FIRST_RUN_KEY_FILE);
}

/**
 * Makes the first-run key (`mint`) and shows it to the operator: on `stderr` when it is a
 * terminal; otherwise in `file`, created anew with mode 0600 (a file already there — say, from an
 * earlier database — is removed first, so neither its permissions nor a symbolic link in its
 * place are reused), its path on stderr. The file is created before the key is made, so a file
 * that cannot be written leaves no key behind (the next start tries again). Returns where it
 * went, for the log line that says so without the key.
 */
export async function revealFirstRunKey(
  mint: () => Promise<string>,
  apiBase: string,
  stderr: OperatorStream,
  file: string,
): Promise<{ readonly file?: string }> {
  if (stderr.isTTY === true) {
    const key = await mint();
    stderr.write(
      `\nNo API key existed, so one was created (the owner's: every scope). It is shown only this once:\n\n  ${key}\n\nTry it:\n\n  curl -H 'Authorization: Bearer ${key}' ${apiBase}/pets\n\n`,
    );
    return {};
  }
  await rm(file, { force: true });
  // 'wx': O_CREAT | O_EXCL, so the file is this one, made now with these permissions.
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(`${await mint()}\n`);
  } finally {
    await handle.close();
  }
  stderr.write(
    `petstore: no API key existed, so one was created (the owner's: every scope). It was written to\n  ${file}\n(mode 0600, readable by this user only) and is shown nowhere else. Try it:\n  curl -H "Authorization: Bearer $(cat '${file}')" ${apiBase}/pets\n`,
  );
  return { file };
}
