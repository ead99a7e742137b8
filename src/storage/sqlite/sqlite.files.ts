// The SQLite database's files hold every secret at rest (the key that seals webhook signing
// secrets, the cursor secret, key hashes): they are made readable by their owner only, whatever
// the umask, and a start-up warns about existing ones that other users can read (docs/operations.md,
// "Files and permissions").
import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** The database file and the files SQLite keeps beside it. */
const databaseFiles = (path: string) => [path, `${path}-wal`, `${path}-shm`];

/**
 * Creates the data folder (0700) and the database file (0600) when they do not exist yet; SQLite
 * creates the -wal and -shm files with the database file's mode. Existing ones are left as they
 * are (an operator may have chosen otherwise): `exposedFiles` reports them.
 */
export function prepareDatabaseFiles(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/**
 * The database files that exist and that users other than the owner may read or write. The folder
 * is not judged: it may be shared (the working directory), and files of mode 0600 in it are safe.
 */
export function exposedFiles(path: string): string[] {
  if (path === ':memory:') return [];
  return databaseFiles(path).filter((file) => {
    try {
      return (statSync(file).mode & 0o077) !== 0;
    } catch {
      return false;
    }
  });
}
