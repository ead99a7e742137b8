import type { Dialect, SqlDb, SqlParam } from '../sql/sql.db.ts';
import type { NewEvent, RecordedEvent } from '../storage.ts';
import { sqlState } from './postgres.db.ts';

// Any fixed 64-bit number works; every instance must use the same one (migrations use another).
const EVENTS_LOCK = 7_290_514_002;
const INSERT_EVENTS = `INSERT INTO events (type, data, created_at)
  SELECT e.type, e.data, $3::timestamptz FROM pg_advisory_xact_lock($4), unnest($1::text[], $2::text[]) WITH ORDINALITY AS e(type, data, n) ORDER BY e.n
  RETURNING id, type`;
const UNIQUE_VIOLATION = '23505';

export const postgresDialect: Dialect = {
  lock: (clause) => clause,
  items: (param, alias) => `unnest(CAST(${param} AS TEXT[])) WITH ORDINALITY AS ${alias}(item, n)`,

  /**
   * Event ids must increase in commit order, or a reader paging the feed by id could pass an id
   * whose transaction commits later. An identity value is taken when the row is inserted, not when
   * it commits, so the insert first takes a transaction-scoped advisory lock that every event
   * writer takes: writers that record events commit one after the other from that point on, each
   * holding the lock from its insert to its COMMIT (the outbox records events last, then only
   * their first deliveries).
   */
  async insertEvents(db: SqlDb, events: readonly NewEvent[], at: Date): Promise<RecordedEvent[]> {
    const params = [events.map((e) => e.type), events.map((e) => JSON.stringify(e.data)), at.toISOString(), EVENTS_LOCK];
    const rows = await db.all<{ id: number; type: NewEvent['type'] }>(INSERT_EVENTS, params);
    // RETURNING gives no order; the identity values do.
    return rows.map((r) => ({ sequence: r.id, type: r.type })).sort((a, b) => a.sequence - b.sequence);
  },

  // A failed statement aborts the whole transaction on PostgreSQL: a savepoint keeps it usable.
  async unlessNameTaken<R>(db: SqlDb, sql: string, params: readonly SqlParam[]): Promise<R[] | undefined> {
    await db.run('SAVEPOINT name');
    try {
      const rows = await db.all<R>(sql, params);
      await db.run('RELEASE SAVEPOINT name');
      return rows;
    } catch (err) {
      if (sqlState(err) !== UNIQUE_VIOLATION) throw err;
      await db.run('ROLLBACK TO SAVEPOINT name');
      return undefined;
    }
  },
};
