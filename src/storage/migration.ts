/** One numbered, append-only schema change; each engine keeps its own list under the same numbers. */
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
