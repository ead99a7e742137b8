import type { Dialect } from '../sql/sql.db.ts';
import { sqlState } from './postgres.db.ts';
import { ALIVE } from './postgres.instance.ts';

const UNIQUE_VIOLATION = '23505';

const searchIds = (param: string) => `SELECT id AS pet_id FROM pets WHERE deleted_at IS NULL AND search @@ CAST(${param} AS tsquery)`;

export const postgresDialect: Dialect = {
  lock: (clause) => clause,
  items: (param, alias) => `unnest(CAST(${param} AS TEXT[])) WITH ORDINALITY AS ${alias}(item, n)`,
  anyOf: (param, type) => `= ANY (CAST(${param} AS ${type}[]))`,

  dataModifyingCte: true,

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
  failedStatementAbortsTransaction: true,
  isUniqueViolation: (err) => sqlState(err) === UNIQUE_VIOLATION,
  takeTurns: 'SELECT pg_advisory_xact_lock($1)',
};
