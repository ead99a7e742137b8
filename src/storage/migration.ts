/** One numbered, append-only schema change; each engine keeps its own list under the same numbers. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}
