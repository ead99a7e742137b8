import pg from 'pg';
import { AppError, StorageUnavailableError } from '../../errors.ts';
import type { SqlDb } from '../sql/sql.db.ts';

export type Row = pg.QueryResultRow;
/** Runs one parameterised statement and returns its rows. */
export type Query = <R>(text: string, params?: readonly unknown[]) => Promise<R[]>;

export interface PgTimeouts {
  /** Waiting for a pooled connection, or opening a new one. */
  readonly connectMs: number;
  /** Server-side limit per statement (statement_timeout); covers lock waits too. */
  readonly statementMs: number;
  /** Client-side limit per statement, for a server that stopped answering (query_timeout). */
  readonly queryMs: number;
}

export const DEFAULT_TIMEOUTS: PgTimeouts = { connectMs: 3000, statementMs: 5000, queryMs: 6000 };

// SQLSTATE classes that mean "the database cannot serve us right now", not "this request is
// wrong": 08 connection exception, 53 insufficient resources, 57 operator intervention (shutdown,
// 57014 statement_timeout). Plus lock_not_available and the two transaction-retry codes.
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57']);
const UNAVAILABLE_CODES = new Set(['55P03', '40001', '40P01']);

/**
 * true for failures of the database or the path to it. Errors without a SQLSTATE from the driver
 * are socket errors (ECONNREFUSED, ECONNRESET, …), connect/read timeouts and "Connection
 * terminated": all of them unavailability. Everything else (a constraint, a bug) is not.
 */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof StorageUnavailableError) return true;
  if (err instanceof pg.DatabaseError) return UNAVAILABLE_CLASSES.has(err.code?.slice(0, 2) ?? '') || UNAVAILABLE_CODES.has(err.code ?? '');
  if (err instanceof AppError || err instanceof TypeError || err instanceof RangeError) return false;
  return err instanceof Error;
}

export function sqlState(err: unknown): string | undefined {
  return err instanceof pg.DatabaseError ? err.code : undefined;
}

function toStorageError(err: unknown): unknown {
  if (err instanceof StorageUnavailableError || !isUnavailable(err)) return err;
  return new StorageUnavailableError(`PostgreSQL is unavailable: ${(err as Error).message}`, { cause: err });
}

/** ids are BIGINT; JavaScript numbers hold them exactly below 2^53, which the API's id schema enforces. */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${text} is beyond 2^53`);
  return n;
}

export interface PgPoolOptions {
  readonly url: string;
  readonly poolSize: number;
  readonly timeouts?: Partial<PgTimeouts>;
}

/**
 * The pool plus the two ways the repositories talk to it. Every failure of the database surfaces as
 * StorageUnavailableError (→ 503) within the timeouts above; the pool replaces broken connections
 * by itself, so service resumes as soon as the database answers again.
 */
export class PgDb {
  readonly pool: pg.Pool;

  constructor(options: PgPoolOptions) {
    const t = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    const types = new pg.TypeOverrides();
    types.setTypeParser(pg.types.builtins.INT8, parseInt8);
    // Timestamps leave the engine in the same form as SQLite's (Date#toISOString: UTC, milliseconds).
    const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ);
    types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (text: string) => (parseTimestamptz(text) as Date).toISOString());
    // A date is a day in no time zone: its text (YYYY-MM-DD) as SQLite keeps it, never a Date at midnight somewhere.
    types.setTypeParser(pg.types.builtins.DATE, (text: string) => text);
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize,
      types,
      application_name: 'petstore',
      connectionTimeoutMillis: t.connectMs,
      statement_timeout: t.statementMs,
      query_timeout: t.queryMs,
      // A transaction left open by a stalled instance must not hold row locks for long.
      idle_in_transaction_session_timeout: t.statementMs * 2,
      keepAlive: true,
    });
    // An idle pooled connection that dies (database restart, network cut) emits 'error'; without a
    // listener Node would crash the process. The pool has already dropped that connection and opens
    // a new one on the next checkout, so there is nothing else to do here.
    this.pool.on('error', () => {});
  }

  /** One statement in its own implicit transaction. */
  readonly query: Query = (text, params) => this.#withClient((client) => on(client).all(text, params));

  /** Statements each in its own implicit transaction, for the shared repositories (storage/sql/). */
  readonly statements: SqlDb = {
    all: (text, params) => this.#withClient((client) => on(client).all(text, params)),
    run: (text, params) => this.#withClient((client) => on(client).run(text, params)),
  };

  /** Several statements on one connection, for session state such as an advisory lock. */
  session<T>(fn: (query: Query) => Promise<T>): Promise<T> {
    return this.#withClient((client) => fn(on(client).all));
  }

  /**
   * Runs fn in one READ COMMITTED transaction on one connection. READ COMMITTED is enough because
   * callers lock the rows they decide on (SELECT … FOR UPDATE) before reading them: a concurrent
   * transaction waiting on the same lock then sees the committed result, never a stale one.
   */
  transaction<T>(fn: (db: SqlDb) => Promise<T>): Promise<T> {
    return this.#withClient(async (client, markBroken) => {
      await run(client, 'BEGIN');
      try {
        const result = await fn(on(client));
        await run(client, 'COMMIT');
        return result;
      } catch (err) {
        // If even ROLLBACK fails the connection is gone; the server rolls back on disconnect.
        await run(client, 'ROLLBACK').catch(markBroken);
        throw err;
      }
    });
  }

  async #withClient<T>(fn: (client: pg.PoolClient, markBroken: (err: Error) => void) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw toStorageError(err);
    }
    let broken: Error | undefined;
    const markBroken = (err: Error) => {
      broken ??= err;
    };
    // A checked-out connection can die between two statements of a transaction; the driver then
    // emits 'error' on the client, which must be listened to (or the process crashes).
    client.on('error', markBroken);
    try {
      return await fn(client, markBroken);
    } catch (err) {
      // Only the driver's own failures are classified (in run()); an error the caller's code
      // throws inside a transaction (a refused order, a bug) passes through unchanged.
      if (err instanceof StorageUnavailableError) markBroken(err);
      throw err;
    } finally {
      client.off('error', markBroken);
      client.release(broken); // with an error the pool destroys the connection instead of reusing it
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** The statements of one connection. */
function on(client: pg.PoolClient): { all: Query; run(text: string, params?: readonly unknown[]): Promise<number> } {
  return {
    all: async <R>(text: string, params?: readonly unknown[]) => (await run(client, text, params)).rows as R[],
    run: async (text: string, params?: readonly unknown[]) => (await run(client, text, params)).rowCount ?? 0,
  };
}

/** One statement on `client`; a failure of the database or the path to it becomes StorageUnavailableError. */
async function run(client: pg.PoolClient, text: string, params?: readonly unknown[]): Promise<pg.QueryResult> {
  try {
    return await client.query(text, params as unknown[] | undefined);
  } catch (err) {
    throw toStorageError(err);
  }
}
