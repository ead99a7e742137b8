import type { Delivery, Webhook } from '../../webhooks/webhook.schemas.ts';
import {
  CLAIM_COLUMNS,
  DELIVERY_COLUMNS,
  eventList,
  toClaimed,
  toDelivery,
  toWebhook,
  toWebhookState,
  webhookColumns,
  type ClaimRow,
  type DeliveryRow,
  type WebhookRow,
} from '../rows.ts';
import type {
  AttemptRecord,
  ClaimedAttempt,
  DeliveryTx,
  Lease,
  PendingAttempt,
  RecordedEvent,
  WebhookCreate,
  WebhookFields,
  WebhookRepository,
  WebhookState,
  WebhookTx,
} from '../storage.ts';
import type { GroupCommit } from './sqlite.group-commit.ts';
import type { Sql } from './sqlite.tx.ts';

// An endpoint with its subscribed types in the order they were given (migration 7).
const WEBHOOK = `SELECT ${webhookColumns("(SELECT group_concat(event_type, ' ' ORDER BY position) FROM webhook_subscriptions s WHERE s.webhook_id = w.id)")} FROM webhooks w`;
const GET = `${WEBHOOK} WHERE w.id = ?`;
// Due: see DeliveryTx.lease.
const DUE = `d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= :now) AND (d.attempt = 1 OR d.next_attempt_at <= :now)`;
const INSERT_ATTEMPT = `INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at)
  VALUES (?, 'attempt', ?, ?, 'pending', ?, ?) RETURNING ${DELIVERY_COLUMNS}`;
// A first attempt of one event to every enabled endpoint subscribed to its type (webhook_subscriptions'
// primary key serves the lookup by type).
const QUEUE = `INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at)
  SELECT w.id, 'attempt', :event, 1, 'pending', :at, :at FROM webhooks w
  WHERE w.enabled AND (w.all_events OR w.id IN (SELECT webhook_id FROM webhook_subscriptions WHERE event_type = :type))`;

/** Webhook endpoints and their delivery logs, read between write batches. */
export class SqliteWebhooks implements WebhookRepository {
  readonly #writes: GroupCommit;
  readonly #sql: Sql;

  constructor(sql: Sql, writes: GroupCommit) {
    this.#writes = writes;
    this.#sql = sql;
  }

  get(id: number): Promise<Webhook | undefined> {
    return this.#writes.outside(() => webhook(this.#sql.get<WebhookRow>(GET, id)));
  }

  list(q: { limit: number; afterId: number }): Promise<Webhook[]> {
    return this.#writes.outside(() => this.#sql.all<WebhookRow>(`${WEBHOOK} WHERE w.id > ? ORDER BY w.id LIMIT ?`, q.afterId, q.limit).map(toWebhook));
  }

  deliveries(webhookId: number, q: { limit: number; beforeId: number }): Promise<Delivery[]> {
    const sql = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id < ? ORDER BY id DESC LIMIT ?`;
    return this.#writes.outside(() => this.#sql.all<DeliveryRow>(sql, webhookId, q.beforeId, q.limit).map(toDelivery));
  }

  anyDue(now: Date): Promise<boolean> {
    return this.#writes.outside(() => this.#sql.get(`SELECT 1 FROM webhook_deliveries d WHERE ${DUE} LIMIT 1`, { now: now.toISOString() }) !== undefined);
  }

  oldestPending(): Promise<string | undefined> {
    const sql = `SELECT e.created_at FROM events e WHERE e.id = (
      SELECT min(d.event_id) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND w.enabled)`;
    return this.#writes.outside(() => this.#sql.get<{ created_at: string }>(sql)?.created_at);
  }

  purge(before: Date): Promise<number> {
    return this.#writes.outside(() => this.#sql.run(`DELETE FROM webhook_deliveries WHERE created_at < ? AND status <> 'pending'`, before.toISOString()));
  }
}

/**
 * Endpoints inside a write. SQLite has one writer at a time (GroupCommit holds the database's
 * write lock), so every read here is a lock, and a claim sees every other claim of every process
 * on the file.
 */
export class SqliteWebhookTx implements WebhookTx {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async insert(input: WebhookCreate, at: Date): Promise<Webhook> {
    const { id } = this.#sql.get<{ id: number }>(
      'INSERT INTO webhooks (url, events, all_events, description, enabled, secret, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?) RETURNING id',
      input.url,
      eventList(input.events),
      input.events === null ? 1 : 0,
      input.description,
      input.secret,
      at.toISOString(),
      at.toISOString(),
    )!;
    this.#subscribe(id, input.events);
    return toWebhook(this.#sql.get<WebhookRow>(GET, id)!);
  }

  async lock(id: number): Promise<WebhookState | undefined> {
    const row = this.#sql.get<WebhookRow>(GET, id);
    return row && toWebhookState(row);
  }

  async update(id: number, f: WebhookFields, at: Date): Promise<Webhook> {
    this.#sql.run(
      `UPDATE webhooks SET url = ?, events = ?, all_events = ?, description = ?, enabled = ?, failing_since = ?, updated_at = ? WHERE id = ?`,
      f.url,
      eventList(f.events),
      f.events === null ? 1 : 0,
      f.description,
      f.enabled ? 1 : 0,
      f.failingSince,
      at.toISOString(),
      id,
    );
    this.#sql.run('DELETE FROM webhook_subscriptions WHERE webhook_id = ?', id);
    this.#subscribe(id, f.events);
    return toWebhook(this.#sql.get<WebhookRow>(GET, id)!);
  }

  #subscribe(id: number, events: readonly string[] | null): void {
    for (const [position, type] of (events ?? []).entries())
      this.#sql.run('INSERT INTO webhook_subscriptions (event_type, webhook_id, position) VALUES (?, ?, ?)', type, id, position);
  }

  async setFailingSince(id: number, since: string | null): Promise<void> {
    this.#sql.run('UPDATE webhooks SET failing_since = ? WHERE id = ?', since, id);
  }

  async rotateSecret(id: number, secret: string, previousUntil: Date, at: Date): Promise<Webhook | undefined> {
    const sql = 'UPDATE webhooks SET previous_secret = secret, previous_secret_until = ?, secret = ?, updated_at = ? WHERE id = ?';
    if (this.#sql.run(sql, previousUntil.toISOString(), secret, at.toISOString(), id) === 0) return undefined;
    return webhook(this.#sql.get<WebhookRow>(GET, id));
  }

  async delete(id: number): Promise<boolean> {
    return this.#sql.run('DELETE FROM webhooks WHERE id = ?', id) === 1;
  }

  async claimable(now: Date, perEndpoint: number, max: number): Promise<number[]> {
    const sql = `SELECT w.id FROM webhooks w
      WHERE w.enabled
        AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND ${DUE})
        AND (SELECT count(*) FROM webhook_deliveries x WHERE x.webhook_id = w.id AND x.status = 'pending' AND x.lease_until > :now) < :per
      ORDER BY w.claimed_at NULLS FIRST, w.id LIMIT :max`;
    return this.#sql.all<{ id: number }>(sql, { now: now.toISOString(), per: perEndpoint, max }).map((r) => r.id);
  }

  async touch(id: number, at: Date): Promise<void> {
    this.#sql.run('UPDATE webhooks SET claimed_at = ? WHERE id = ?', at.toISOString(), id);
  }
}

/** Delivery log entries inside a write; see SqliteWebhookTx. */
export class SqliteDeliveryTx implements DeliveryTx {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async queue(events: readonly RecordedEvent[], at: Date): Promise<void> {
    const createdAt = at.toISOString();
    for (const e of events) this.#sql.run(QUEUE, { event: e.sequence, at: createdAt, type: e.type });
  }

  async get(webhookId: number, id: number): Promise<Delivery | undefined> {
    const row = this.#sql.get<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id = ?`, webhookId, id);
    return row && toDelivery(row);
  }

  async pending(webhookId: number, eventSequence: number): Promise<PendingAttempt | undefined> {
    const sql = `SELECT ${DELIVERY_COLUMNS}, lease_until FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ? AND status = 'pending'`;
    const row = this.#sql.get<DeliveryRow & { lease_until: string | null }>(sql, webhookId, eventSequence);
    return row && { delivery: toDelivery(row), leaseUntil: row.lease_until };
  }

  async dueAt(id: number, at: Date): Promise<Delivery> {
    const sql = `UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? RETURNING ${DELIVERY_COLUMNS}`;
    return toDelivery(this.#sql.get<DeliveryRow>(sql, at.toISOString(), id)!);
  }

  async lastAttempt(webhookId: number, eventSequence: number): Promise<number> {
    const sql = 'SELECT coalesce(max(attempt), 0) AS n FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ?';
    return this.#sql.get<{ n: number }>(sql, webhookId, eventSequence)!.n;
  }

  async insertAttempt(webhookId: number, eventSequence: number, attempt: number, due: Date, at: Date): Promise<Delivery> {
    return toDelivery(this.#sql.get<DeliveryRow>(INSERT_ATTEMPT, webhookId, eventSequence, attempt, due.toISOString(), at.toISOString())!);
  }

  async failPending(webhookId: number, error: string): Promise<void> {
    const sql = `UPDATE webhook_deliveries SET status = 'failed', error = ?, next_attempt_at = NULL, lease_until = NULL, lease_token = NULL
      WHERE webhook_id = ? AND status = 'pending'`;
    this.#sql.run(sql, error, webhookId);
  }

  async logDisabled(webhookId: number, error: string, at: Date): Promise<void> {
    const sql = `INSERT INTO webhook_deliveries (webhook_id, type, status, error, created_at) VALUES (?, 'webhook.disabled', 'failed', ?, ?)`;
    this.#sql.run(sql, webhookId, error, at.toISOString());
  }

  async inFlight(webhookId: number, now: Date): Promise<number> {
    const sql = `SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' AND lease_until > ?`;
    return this.#sql.get<{ n: number }>(sql, webhookId, now.toISOString())!.n;
  }

  async lease(webhookId: number, lease: Lease, limit: number): Promise<number> {
    const sql = `UPDATE webhook_deliveries SET lease_until = :until, lease_token = :token WHERE id IN (
      SELECT d.id FROM webhook_deliveries d WHERE d.webhook_id = :webhook AND ${DUE} ORDER BY d.event_id, d.id LIMIT :limit)`;
    const now = lease.now.toISOString();
    return this.#sql.run(sql, { until: lease.until.toISOString(), token: lease.token, webhook: webhookId, now, limit });
  }

  async leased(token: string, now: Date): Promise<ClaimedAttempt[]> {
    const sql = `SELECT ${CLAIM_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN events e ON e.id = d.event_id
      WHERE d.lease_token = ? AND d.status = 'pending' ORDER BY d.webhook_id, d.event_id`;
    return this.#sql.all<ClaimRow>(sql, token).map((r) => toClaimed(r, now));
  }

  async record(r: AttemptRecord): Promise<boolean> {
    const sql = `UPDATE webhook_deliveries SET status = :status, http_status = :http, duration_ms = :ms, error = :error, attempted_at = :at,
        next_attempt_at = :next, lease_until = NULL, lease_token = NULL
      WHERE id = :id AND lease_token = :token AND status = 'pending'`;
    const params = {
      id: r.deliveryId,
      token: r.token,
      status: r.status,
      http: r.httpStatus,
      ms: r.durationMs,
      error: r.error,
      at: r.attemptedAt.toISOString(),
      next: r.nextAttemptAt?.toISOString() ?? null,
    };
    return this.#sql.run(sql, params) === 1;
  }
}

const webhook = (row: WebhookRow | undefined): Webhook | undefined => row && toWebhook(row);
