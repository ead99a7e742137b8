import type { Actor, ActivityEntry } from '../../activity/activity.schemas.ts';
import type { ActivityQuery, ActivityRepository, ActivityTx, NewActivity } from '../../activity/activity.store.ts';
import type { SqlDb, SqlParam } from './sql.db.ts';

interface ActivityRow {
  id: number | string;
  at: string;
  actor_type: Actor['type'];
  actor_id: number | string | null;
  actor_name: string;
  type: string;
  resource: string;
  changes: string | null;
}
const COLUMNS = 'id, at, actor_type, actor_id, actor_name, type, resource, changes';
const toEntry = (r: ActivityRow): ActivityEntry => ({
  id: Number(r.id),
  at: new Date(r.at).toISOString(),
  actor: { type: r.actor_type, id: r.actor_id === null ? null : Number(r.actor_id), name: r.actor_name },
  type: r.type,
  resource: r.resource,
  ...(r.changes === null ? {} : { changes: JSON.parse(r.changes) }),
});

const INSERT = 'INSERT INTO activity (at, actor_type, actor_id, actor_name, type, resource, changes) VALUES ($1, $2, $3, $4, $5, $6, $7)';

// Newest first by id; each filter is a condition on an indexed column (migration 20), its parameter
// numbered in order.
export class SqlActivity implements ActivityRepository {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async list(q: ActivityQuery): Promise<ActivityEntry[]> {
    const where: string[] = [];
    const params: SqlParam[] = [];
    const param = (value: SqlParam) => {
      params.push(value);
      return `$${params.length}`;
    };
    if (q.beforeId !== undefined) where.push(`id < ${param(q.beforeId)}`);
    if (q.actor !== undefined) where.push(`actor_type = ${param(q.actor.type)} AND actor_id = ${param(q.actor.id)}`);
    if (q.resource !== undefined) where.push(`resource = ${param(q.resource)}`);
    if (q.type !== undefined) where.push(`type = ${param(q.type)}`);
    if (q.from !== undefined) where.push(`at >= ${param(q.from.toISOString())}`);
    if (q.to !== undefined) where.push(`at < ${param(q.to.toISOString())}`);
    const sql = `SELECT ${COLUMNS} FROM activity${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${param(q.limit)}`;
    return (await this.#db.all<ActivityRow>(sql, params)).map(toEntry);
  }

  purge(before: Date): Promise<number> {
    return this.#db.run('DELETE FROM activity WHERE at < $1', [before.toISOString()]);
  }
}

export class SqlActivityTx implements ActivityTx {
  readonly #db: SqlDb;

  constructor(db: SqlDb) {
    this.#db = db;
  }

  async record(actor: Actor, entries: readonly NewActivity[], at: Date): Promise<void> {
    const stamp = at.toISOString();
    for (const e of entries)
      await this.#db.run(INSERT, [stamp, actor.type, actor.id, actor.name, e.type, e.resource, e.changes === undefined ? null : JSON.stringify(e.changes)]);
  }
}
