// Webhook endpoints and their delivery logs.
//
// Locking (PostgreSQL): whoever changes an endpoint's deliveries locks the endpoint's row first
// (FOR NO KEY UPDATE: lock, claimable), then delivery rows — claims, results, retries, disabling —
// so they cannot deadlock. Claims skip endpoints another instance is claiming for (SKIP LOCKED),
// and holding the endpoint's row while counting its attempts in flight makes the per-endpoint
// limit and the event-id order hold across instances. Writers recording events only insert
// deliveries (EventTx.publish), which takes KEY SHARE on the endpoint's row: it never waits for
// those locks.
// SQLite has one writer at a time: a claim sees every other claim of every process on the file.
import type { Delivery, Webhook } from '../../webhooks/webhook.schemas.ts';
import {
  CLAIM_COLUMNS,
  DELIVERY_COLUMNS,
  eventList,
  toLeased,
  toDelivery,
  toWebhook,
  toWebhookState,
  type ClaimRow,
  type DeliveryRow,
  type WebhookRow,
} from '../rows.ts';
import type {
  AttemptRecord,
  ClaimableEndpoint,
  DeliveryTx,
  Lease,
  LeasedAttempt,
  PendingAttempt,
  WebhookCreate,
  WebhookFields,
  WebhookRepository,
  WebhookState,
  WebhookTx,
} from '../../webhooks/webhook.store.ts';
import { first, perDialect, type Dialect, type SqlDb } from './sql.db.ts';
import { SUBTREE } from './sql.keys.ts';

// An endpoint, its subscribed types (migration 7) in the order they were given: NULL for every type.
const WEBHOOK = `SELECT w.id, w.url, w.description, w.enabled, w.created_at, w.failing_since, w.owner_key_id,
  CASE WHEN w.all_events THEN NULL ELSE (SELECT string_agg(event_type, ' ' ORDER BY position) FROM webhook_subscriptions s WHERE s.webhook_id = w.id) END AS events
  FROM webhooks w`;
const GET = `${WEBHOOK} WHERE w.id = $1`;
const LOCK = perDialect((d) => `${WEBHOOK.replace(' FROM webhooks w', ', w.host FROM webhooks w')} WHERE w.id = $1 ${d.lock('FOR NO KEY UPDATE')}`);
const SUBSCRIBE = perDialect((d) => `INSERT INTO webhook_subscriptions (event_type, webhook_id, position) SELECT t.item, $1, t.n FROM ${d.items('$2', 't')}`);
/**
 * Which endpoints an event of type `type` owes a first attempt (EventTx.publish), as a condition on
 * `webhooks w`: the enabled ones that take every type or list this one. webhook_subscriptions'
 * primary key serves the lookup by type.
 */
export const SUBSCRIBED = (type: string) =>
  `w.enabled AND (w.all_events OR w.id IN (SELECT s.webhook_id FROM webhook_subscriptions s WHERE s.event_type = ${type}))`;
// Any fixed 64-bit number; every instance uses the same one (events and migrations use others).
const REGISTRATIONS_LOCK = 7_290_514_012;
// Held by a dispatcher (a lease): not run out, and its instance alive (Dialect.alive), so the
// attempts of an instance that died are due again at once. Leases of the release before migration 8
// name no instance and run out by time alone. $1 is the claim's "now".
const HELD = (d: Dialect, x: string) =>
  `${x}.lease_until IS NOT NULL AND ${x}.lease_until > $1 AND (${x}.lease_instance IS NULL OR ${d.alive(`${x}.lease_instance`)})`;
// Due (DeliveryTx.lease): pending, not held, its time come, and written by a settled transaction
// (Dialect.settled), so that attempts go out in the feed's order, never one behind a later one.
const DUE = (d: Dialect) => `d.status = 'pending' AND NOT (${HELD(d, 'd')}) AND (d.attempt = 1 OR d.next_attempt_at <= $1) AND ${d.settled('d.xid')}`;
const ANY_DUE = perDialect((d) => `SELECT 1 FROM webhook_deliveries d WHERE ${DUE(d)} LIMIT 1`);
// In flight (held) to one endpoint ($2), or to one destination host ($2; WEBHOOK_HOST_CONCURRENCY).
const IN_FLIGHT = perDialect((d) => `SELECT count(*) AS n FROM webhook_deliveries x WHERE x.webhook_id = $2 AND x.status = 'pending' AND ${HELD(d, 'x')}`);
const IN_FLIGHT_TO_HOST = perDialect(
  (d) => `SELECT count(*) AS n FROM webhook_deliveries x JOIN webhooks h ON h.id = x.webhook_id WHERE h.host = $2 AND x.status = 'pending' AND ${HELD(d, 'x')}`,
);
const CLAIMABLE = perDialect(
  (d) => `SELECT w.id, w.host FROM webhooks w
    WHERE w.enabled
      AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND ${DUE(d)})
      AND (SELECT count(*) FROM webhook_deliveries x WHERE x.webhook_id = w.id AND x.status = 'pending' AND ${HELD(d, 'x')}) < $2
      AND (w.host IS NULL OR (SELECT count(*) FROM webhook_deliveries x JOIN webhooks h ON h.id = x.webhook_id WHERE h.host = w.host AND x.status = 'pending' AND ${HELD(d, 'x')}) < $4)
    ORDER BY w.claimed_at NULLS FIRST, w.id LIMIT $3 ${d.lock('FOR NO KEY UPDATE OF w SKIP LOCKED')}`,
);
const LEASE = perDialect(
  (d) => `UPDATE webhook_deliveries SET lease_until = $3, lease_token = $4, lease_instance = $6 WHERE id IN (
    SELECT d.id FROM webhook_deliveries d WHERE d.webhook_id = $2 AND ${DUE(d)} ORDER BY d.xid, d.event_id, d.id LIMIT $5 ${d.lock('FOR UPDATE SKIP LOCKED')})`,
);

export class SqlWebhooks implements WebhookRepository {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async get(id: number): Promise<Webhook | undefined> {
    return webhook(await first(this.#db, GET, [id]));
  }

  async list(q: { limit: number; afterId: number }): Promise<Webhook[]> {
    return (await this.#db.all<WebhookRow>(`${WEBHOOK} WHERE w.id > $1 ORDER BY w.id LIMIT $2`, [q.afterId, q.limit])).map(toWebhook);
  }

  async deliveries(webhookId: number, q: { limit: number; beforeId: number }): Promise<Delivery[]> {
    const sql = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`;
    return (await this.#db.all<DeliveryRow>(sql, [webhookId, q.beforeId, q.limit])).map(toDelivery);
  }

  async anyDue(now: Date): Promise<boolean> {
    return (await first(this.#db, ANY_DUE(this.#d), [now.toISOString()])) !== undefined;
  }

  async oldestPending(): Promise<string | undefined> {
    const sql = `SELECT e.created_at FROM events e WHERE e.id = (
      SELECT min(d.event_id) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND w.enabled)`;
    return (await first<{ created_at: string }>(this.#db, sql))?.created_at;
  }

  purge(before: Date): Promise<number> {
    return this.#db.run(`DELETE FROM webhook_deliveries WHERE created_at < $1 AND status <> 'pending'`, [before.toISOString()]);
  }
}

export class SqlWebhookTx implements WebhookTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;

  constructor(db: SqlDb, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async insert(input: WebhookCreate, at: Date): Promise<Webhook> {
    const sql = `INSERT INTO webhooks (url, events, all_events, description, enabled, secret, created_at, updated_at, host, owner_key_id)
      VALUES ($1, $2, $3, $4, true, $5, $6, $6, $7, $8) RETURNING id`;
    const created = await first<{ id: number }>(this.#db, sql, [
      input.url,
      eventList(input.events),
      input.events === null,
      input.description,
      input.secret,
      at.toISOString(),
      input.host,
      input.keyId,
    ]);
    return this.#subscribe(created!.id, input.events);
  }

  async lock(id: number): Promise<WebhookState | undefined> {
    const row = await first<WebhookRow>(this.#db, LOCK(this.#d), [id]);
    return row && toWebhookState(row);
  }

  async update(id: number, f: WebhookFields, at: Date): Promise<Webhook> {
    const sql = `UPDATE webhooks SET url = $2, events = $3, all_events = $4, description = $5, enabled = $6, failing_since = $7, updated_at = $8,
      host = $9, owner_key_id = $10 WHERE id = $1`;
    const params = [id, f.url, eventList(f.events), f.events === null, f.description, f.enabled, f.failingSince, at.toISOString(), f.host, f.keyId];
    await this.#db.run(sql, params);
    await this.#db.run('DELETE FROM webhook_subscriptions WHERE webhook_id = $1', [id]);
    return this.#subscribe(id, f.events);
  }

  /** Writes the endpoint's subscriptions (none when it takes every type) and reads it back. */
  async #subscribe(id: number, events: readonly string[] | null): Promise<Webhook> {
    if (events !== null) await this.#db.run(SUBSCRIBE(this.#d), [id, events]);
    return toWebhook((await first<WebhookRow>(this.#db, GET, [id]))!);
  }

  async setFailingSince(id: number, since: string | null): Promise<void> {
    await this.#db.run('UPDATE webhooks SET failing_since = $2 WHERE id = $1', [id, since]);
  }

  async rotateSecret(id: number, secret: string, previousUntil: Date, at: Date): Promise<Webhook | undefined> {
    const sql = 'UPDATE webhooks SET previous_secret = secret, previous_secret_until = $2, secret = $3, updated_at = $4 WHERE id = $1';
    if ((await this.#db.run(sql, [id, previousUntil.toISOString(), secret, at.toISOString()])) === 0) return undefined;
    return webhook(await first(this.#db, GET, [id]));
  }

  async delete(id: number): Promise<boolean> {
    return (await this.#db.run('DELETE FROM webhooks WHERE id = $1', [id])) === 1;
  }

  claimable(now: Date, limits: { perEndpoint: number; perHost: number }, max: number): Promise<ClaimableEndpoint[]> {
    return this.#db.all<ClaimableEndpoint>(CLAIMABLE(this.#d), [now.toISOString(), limits.perEndpoint, max, limits.perHost]);
  }

  async countForInsert(): Promise<number> {
    // PostgreSQL: registrations take turns from here to COMMIT, so each counts the ones before it
    // (READ COMMITTED: the next statement sees them). SQLite's one writer needs nothing.
    if (this.#d.takeTurns !== undefined) await this.#db.all(this.#d.takeTurns, [REGISTRATIONS_LOCK]);
    return (await first<{ n: number }>(this.#db, 'SELECT count(*) AS n FROM webhooks'))!.n;
  }

  async countOwnedBelow(keyId: number): Promise<number> {
    return (await first<{ n: number }>(this.#db, `${SUBTREE(1)} SELECT count(*) AS n FROM webhooks WHERE owner_key_id IN (SELECT id FROM tree)`, [keyId]))!.n;
  }

  async touch(id: number, at: Date): Promise<void> {
    await this.#db.run('UPDATE webhooks SET claimed_at = $2 WHERE id = $1', [id, at.toISOString()]);
  }
}

/** Delivery log entries; the workflows changing them hold their endpoint's row (SqlWebhookTx.lock). */
export class SqlDeliveryTx implements DeliveryTx {
  readonly #db: SqlDb;
  readonly #d: Dialect;
  readonly #instance: number;

  /** `instance` holds the leases this transaction takes (Dialect.alive). */
  constructor(db: SqlDb, dialect: Dialect, instance: number) {
    this.#db = db;
    this.#d = dialect;
    this.#instance = instance;
  }

  async get(webhookId: number, id: number): Promise<Delivery | undefined> {
    return delivery(await first(this.#db, `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id = $2`, [webhookId, id]));
  }

  async pending(webhookId: number, eventSequence: number): Promise<PendingAttempt | undefined> {
    const sql = `SELECT ${DELIVERY_COLUMNS}, lease_until FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2 AND status = 'pending'`;
    const row = await first<DeliveryRow & { lease_until: string | null }>(this.#db, sql, [webhookId, eventSequence]);
    return row && { delivery: toDelivery(row), leaseUntil: row.lease_until };
  }

  async dueAt(id: number, at: Date): Promise<Delivery> {
    const sql = `UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE id = $1 RETURNING ${DELIVERY_COLUMNS}`;
    return toDelivery((await first<DeliveryRow>(this.#db, sql, [id, at.toISOString()]))!);
  }

  async lastAttempt(webhookId: number, eventSequence: number): Promise<number> {
    const sql = 'SELECT coalesce(max(attempt), 0) AS n FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2';
    return (await first<{ n: number }>(this.#db, sql, [webhookId, eventSequence]))!.n;
  }

  async insertAttempt(webhookId: number, eventSequence: number, attempt: number, due: Date, at: Date): Promise<Delivery> {
    const sql = `INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at)
      VALUES ($1, 'attempt', $2, $3, 'pending', $4, $5) RETURNING ${DELIVERY_COLUMNS}`;
    return toDelivery((await first<DeliveryRow>(this.#db, sql, [webhookId, eventSequence, attempt, due.toISOString(), at.toISOString()]))!);
  }

  async failPending(webhookId: number, error: string): Promise<void> {
    const sql = `UPDATE webhook_deliveries SET status = 'failed', error = $2, next_attempt_at = NULL, lease_until = NULL, lease_token = NULL
      WHERE webhook_id = $1 AND status = 'pending'`;
    await this.#db.run(sql, [webhookId, error]);
  }

  async logDisabled(webhookId: number, error: string, at: Date): Promise<void> {
    const sql = `INSERT INTO webhook_deliveries (webhook_id, type, status, error, created_at) VALUES ($1, 'webhook.disabled', 'failed', $2, $3)`;
    await this.#db.run(sql, [webhookId, error, at.toISOString()]);
  }

  async inFlight(webhookId: number, now: Date): Promise<number> {
    return (await first<{ n: number }>(this.#db, IN_FLIGHT(this.#d), [now.toISOString(), webhookId]))!.n;
  }

  async inFlightToHost(host: string, now: Date): Promise<number> {
    return (await first<{ n: number }>(this.#db, IN_FLIGHT_TO_HOST(this.#d), [now.toISOString(), host]))!.n;
  }

  lease(webhookId: number, lease: Lease, limit: number): Promise<number> {
    return this.#db.run(LEASE(this.#d), [lease.now.toISOString(), webhookId, lease.until.toISOString(), lease.token, limit, this.#instance]);
  }

  async leased(token: string): Promise<LeasedAttempt[]> {
    const sql = `SELECT ${CLAIM_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN events e ON e.id = d.event_id
      WHERE d.lease_token = $1 AND d.status = 'pending' ORDER BY d.webhook_id, d.event_id`;
    return (await this.#db.all<ClaimRow>(sql, [token])).map(toLeased);
  }

  async record(r: AttemptRecord): Promise<boolean> {
    const sql = `UPDATE webhook_deliveries SET status = $3, http_status = $4, duration_ms = $5, error = $6, attempted_at = $7, next_attempt_at = $8,
        lease_until = NULL, lease_token = NULL
      WHERE id = $1 AND lease_token = $2 AND status = 'pending'`;
    const params = [r.deliveryId, r.token, r.status, r.httpStatus, r.durationMs, r.error, r.attemptedAt.toISOString(), r.nextAttemptAt?.toISOString() ?? null];
    return (await this.#db.run(sql, params)) === 1;
  }
}

const webhook = (row: WebhookRow | undefined): Webhook | undefined => row && toWebhook(row);
const delivery = (row: DeliveryRow | undefined): Delivery | undefined => row && toDelivery(row);
