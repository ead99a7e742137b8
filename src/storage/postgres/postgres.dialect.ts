import type { Dialect, SqlDb, SqlParam } from '../sql/sql.db.ts';
import { SUBSCRIBED } from '../sql/sql.webhooks.ts';
import type { NewEvent } from '../../events/event.store.ts';
import { sqlState } from './postgres.db.ts';
import { ALIVE } from './postgres.instance.ts';

// One statement: the events, then their first attempts, both with the writing transaction's id
// (the columns' default, pg_current_xact_id()). Inserting a delivery takes a KEY SHARE lock on its
// endpoint's row, which the dispatchers' claims (FOR NO KEY UPDATE) do not block.
const PUBLISH = `WITH e AS (
    INSERT INTO events (type, data, created_at)
    SELECT e.type, e.data, $3::timestamptz FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS e(type, data, n) ORDER BY e.n
    RETURNING id, type
  )
  INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at)
  SELECT w.id, 'attempt', e.id, 1, 'pending', $3::timestamptz, $3::timestamptz FROM e JOIN webhooks w ON ${SUBSCRIBED('e.type')}
  ORDER BY e.id, w.id`;
const UNIQUE_VIOLATION = '23505';

const searchIds = (param: string) => `SELECT id AS pet_id FROM pets WHERE deleted_at IS NULL AND search @@ CAST(${param} AS tsquery)`;

export const postgresDialect: Dialect = {
  lock: (clause) => clause,
  items: (param, alias) => `unnest(CAST(${param} AS TEXT[])) WITH ORDINALITY AS ${alias}(item, n)`,

  /**
   * Writers do not wait for each other: an identity value is taken at insert, not at commit, so ids
   * alone do not follow commit order; readers order by the writing transaction's id instead and
   * read only what `settled` lets through (docs/events.md).
   */
  async publish(db: SqlDb, events: readonly NewEvent[], at: Date): Promise<void> {
    await db.run(PUBLISH, [events.map((e) => e.type), events.map((e) => JSON.stringify(e.data)), at.toISOString()]);
  },

  // pg_current_snapshot() is the statement's snapshot (READ COMMITTED); its xmin is the oldest
  // transaction still running, and every transaction below it has ended.
  settled: (xid) => `${xid} < pg_snapshot_xmin(pg_current_snapshot())`,
  alive: ALIVE,

  // A tsquery written out, not parsed (the words are lexemes already): every word as a prefix, all required.
  searchTerms: (words) => words.map((w) => `'${w}':*`).join(' & '),
  // pets.search is the tsvector of search_text's words (migration 9), indexed by pets_live_search
  // (GIN). For a query matching much of the store the planner walks pets_live_id in id order,
  // checking each row's stored tsvector, and soon has a page. Its estimate of a rare prefix is too
  // high to be trusted (it would walk the whole id index looking for a page), so PostgresPets
  // samples the pets at the page's position first (SEARCH_SAMPLE in sql.pet-list.ts), and for a
  // query rare there the matches' ids come from the GIN index first, as one array (an InitPlan,
  // run once: a join there was planned as a merge join walking the id index up to the matches),
  // and only those pets are read by primary key and ordered.
  searchPets: (param, sparse) =>
    sparse
      ? {
          from: 'pets p',
          where: `p.id = ANY (ARRAY(${searchIds(param)}))`,
          id: 'p.id',
        }
      : { from: 'pets p', where: `p.search @@ CAST(${param} AS tsquery)`, id: 'p.id' },
  searchIds,
  countReadsEveryMatch: true,
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

  async serialize(db: SqlDb, lock: number): Promise<void> {
    await db.all('SELECT pg_advisory_xact_lock($1)', [lock]);
  },
};
