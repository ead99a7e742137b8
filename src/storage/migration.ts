// Migrations are files: src/storage/migrations/NNNN-<slug>/sqlite.sql and postgres.sql, one folder
// per version, numbered 1, 2, 3… without gaps, append-only (a released file never changes). Each
// file starts with its header, `-- key: value` lines up to the first blank line:
//   -- name: store orders                the name schema_migrations records (required)
//   -- rebuilds-tables: yes              SQLite only: see Migration.rebuildsTables
// Every PostgreSQL migration stays additive (new tables, new nullable columns, new indexes) so that
// instances still running the previous release keep working during a rolling deploy (docs/deploy.md).
import { readdirSync, readFileSync } from 'node:fs';
import type { Storage } from './storage.ts';

/** One numbered, append-only schema change; each engine has its own file of it under the same number. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /**
   * SQLite only: the migration rebuilds a table the way SQLite's ALTER TABLE documentation
   * prescribes (create the new table, copy, drop the old, rename), which other tables' foreign
   * keys must not see half-done. It runs with foreign key enforcement off and must leave
   * `PRAGMA foreign_key_check` empty before it commits.
   */
  readonly rebuildsTables?: boolean;
}

const MIGRATIONS = new URL('./migrations/', import.meta.url);
const FOLDER = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*$/;
const read = new Map<Storage['engine'], readonly Migration[]>();

/** The engine's migrations, in version order (read from the files once per process). */
export function readMigrations(engine: Storage['engine']): readonly Migration[] {
  let migrations = read.get(engine);
  if (migrations === undefined) {
    const folders = readdirSync(MIGRATIONS, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    migrations = folders.map((folder, i) => {
      const version = Number(FOLDER.exec(folder)?.[1]);
      if (version !== i + 1) throw new Error(`migrations/${folder}: folders are named NNNN-<slug> and numbered 1, 2, 3… without gaps`);
      const file = `${folder}/${engine}.sql`;
      return parseMigration(version, readFileSync(new URL(file, MIGRATIONS), 'utf8'), engine, file);
    });
    read.set(engine, migrations);
  }
  return migrations;
}

/** One migration file: its header (see above), a blank line, then the SQL the runner executes. */
export function parseMigration(version: number, text: string, engine: Storage['engine'], file: string): Migration {
  const blank = text.indexOf('\n\n');
  if (blank < 0) throw new Error(`migrations/${file}: no blank line after the header`);
  const header = new Map<string, string>();
  for (const line of text.slice(0, blank).split('\n')) {
    const field = /^-- ([a-z-]+): (.+)$/.exec(line);
    if (!field || header.has(field[1])) throw new Error(`migrations/${file}: "${line}" is not a header line (-- key: value, each key once)`);
    header.set(field[1], field[2]);
  }
  const name = header.get('name');
  if (name === undefined) throw new Error(`migrations/${file}: the header has no name`);
  const rebuilds = header.get('rebuilds-tables');
  if (rebuilds !== undefined && (rebuilds !== 'yes' || engine !== 'sqlite'))
    throw new Error(`migrations/${file}: rebuilds-tables is "yes", in sqlite.sql only`);
  const unknown = [...header.keys()].filter((key) => key !== 'name' && key !== 'rebuilds-tables');
  if (unknown.length > 0) throw new Error(`migrations/${file}: unknown header ${unknown.join(', ')}`);
  const sql = text.slice(blank + 2);
  return rebuilds === undefined ? { version, name, sql } : { version, name, sql, rebuildsTables: true };
}
