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
import type { PgDb, Query } from './postgres.db.ts';

// An endpoint with its subscribed types in the order they were given (migration 7).
const WEBHOOK = `SELECT ${webhookColumns("(SELECT string_agg(event_type, ' ' ORDER BY position) FROM webhook_subscriptions s WHERE s.webhook_id = w.id)")} FROM webhooks w`;
const GET = `${WEBHOOK} WHERE w.id = $1`;
// Due: see DeliveryTx.lease. $1 is the claim's "now".
const DUE = `d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= $1) AND (d.attempt = 1 OR d.next_attempt_at <= $1)`;
// A first attempt of each event to every enabled endpoint subscribed to its type
// (webhook_subscriptions' primary key serves the lookup by type). Inserting a delivery takes a
// KEY SHARE lock on its endpoint's row, which the dispatchers' claims (FOR NO KEY UPDATE) do not block.
const QUEUE = `INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at)
  SELECT w.id, 'attempt', e.id, 1, 'pending', $3, $3 FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS e(id, type, n)
  JOIN webhooks w ON w.enabled AND (w.all_events OR w.id IN (SELECT webhook_id FROM webhook_subscriptions s WHERE s.event_type = e.type))
  ORDER BY e.n, w.id`;

export class PostgresWebhooks implements WebhookRepository {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  async get(id: number): Promise<Webhook | undefined> {
    const [row] = await this.#db.query<WebhookRow>(GET, [id]);
    return row && toWebhook(row);
  }

  async list(q: { limit: number; afterId: number }): Promise<Webhook[]> {
    return (await this.#db.query<WebhookRow>(`${WEBHOOK} WHERE w.id > $1 ORDER BY w.id LIMIT $2`, [q.afterId, q.limit])).map(toWebhook);
  }

  async deliveries(webhookId: number, q: { limit: number; beforeId: number }): Promise<Delivery[]> {
    const rows = await this.#db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`,
      [webhookId, q.beforeId, q.limit],
    );
    return rows.map(toDelivery);
  }

  async anyDue(now: Date): Promise<boolean> {
    // Without a transaction or locks: an idle dispatcher asks often.
    return (await this.#db.query(`SELECT 1 FROM webhook_deliveries d WHERE ${DUE} LIMIT 1`, [now.toISOString()])).length > 0;
  }

  async oldestPending(): Promise<string | undefined> {
    const [row] = await this.#db.query<{ created_at: string }>(
      `SELECT e.created_at FROM events e WHERE e.id = (
         SELECT min(d.event_id) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND w.enabled)`,
    );
    return row?.created_at;
  }

  async purge(before: Date): Promise<number> {
    const [row] = await this.#db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM webhook_deliveries WHERE created_at < $1 AND status <> 'pending' RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      [before.toISOString()],
    );
    return row.n;
  }
}

/**
 * Endpoints inside a workflow's transaction.
 *
 * Locking: whoever changes an endpoint's deliveries locks the endpoint's row first
 * (FOR NO KEY UPDATE: lock, claimable), then delivery rows — claims, results, retries, disabling —
 * so they cannot deadlock. Claims skip endpoints another instance is claiming for (SKIP LOCKED),
 * and holding the endpoint's row while counting its attempts in flight makes the per-endpoint
 * limit and the event-id order hold across instances. Writers recording events only insert
 * deliveries (DeliveryTx.queue), which takes KEY SHARE on the endpoint's row: it never waits for
 * those locks.
 */
export class PostgresWebhookTx implements WebhookTx {
  readonly #query: Query;

  constructor(query: Query) {
    this.#query = query;
  }

  async insert(input: WebhookCreate, at: Date): Promise<Webhook> {
    const [{ id }] = await this.#query<{ id: number }>(
      `INSERT INTO webhooks (url, events, all_events, description, enabled, secret, created_at, updated_at) VALUES ($1, $2, $3, $4, true, $5, $6, $6) RETURNING id`,
      [input.url, eventList(input.events), input.events === null, input.description, input.secret, at.toISOString()],
    );
    await this.#subscribe(id, input.events);
    return toWebhook((await this.#query<WebhookRow>(GET, [id]))[0]);
  }

  async lock(id: number): Promise<WebhookState | undefined> {
    const [row] = await this.#query<WebhookRow>(`${GET} FOR NO KEY UPDATE OF w`, [id]);
    return row && toWebhookState(row);
  }

  async update(id: number, f: WebhookFields, at: Date): Promise<Webhook> {
    await this.#query(
      'UPDATE webhooks SET url = $2, events = $3, all_events = $4, description = $5, enabled = $6, failing_since = $7, updated_at = $8 WHERE id = $1',
      [id, f.url, eventList(f.events), f.events === null, f.description, f.enabled, f.failingSince, at.toISOString()],
    );
    await this.#query('DELETE FROM webhook_subscriptions WHERE webhook_id = $1', [id]);
    await this.#subscribe(id, f.events);
    return toWebhook((await this.#query<WebhookRow>(GET, [id]))[0]);
  }

  async #subscribe(id: number, events: readonly string[] | null): Promise<void> {
    if (events === null) return;
    await this.#query(
      'INSERT INTO webhook_subscriptions (event_type, webhook_id, position) SELECT t.type, $1, t.n FROM unnest($2::text[]) WITH ORDINALITY AS t(type, n)',
      [id, events],
    );
  }

  async setFailingSince(id: number, since: string | null): Promise<void> {
    await this.#query('UPDATE webhooks SET failing_since = $2 WHERE id = $1', [id, since]);
  }

  async rotateSecret(id: number, secret: string, previousUntil: Date, at: Date): Promise<Webhook | undefined> {
    const sql = 'UPDATE webhooks SET previous_secret = secret, previous_secret_until = $2, secret = $3, updated_at = $4 WHERE id = $1 RETURNING id';
    if ((await this.#query(sql, [id, previousUntil.toISOString(), secret, at.toISOString()])).length === 0) return undefined;
    return toWebhook((await this.#query<WebhookRow>(GET, [id]))[0]);
  }

  async delete(id: number): Promise<boolean> {
    return (await this.#query('DELETE FROM webhooks WHERE id = $1 RETURNING 1', [id])).length === 1;
  }

  async claimable(now: Date, perEndpoint: number, max: number): Promise<number[]> {
    const rows = await this.#query<{ id: number }>(
      `SELECT w.id FROM webhooks w
       WHERE w.enabled
         AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND ${DUE})
         AND (SELECT count(*) FROM webhook_deliveries x WHERE x.webhook_id = w.id AND x.status = 'pending' AND x.lease_until > $1) < $2
       ORDER BY w.claimed_at NULLS FIRST, w.id LIMIT $3
       FOR NO KEY UPDATE OF w SKIP LOCKED`,
      [now.toISOString(), perEndpoint, max],
    );
    return rows.map((r) => r.id);
  }

  async touch(id: number, at: Date): Promise<void> {
    await this.#query('UPDATE webhooks SET claimed_at = $2 WHERE id = $1', [id, at.toISOString()]);
  }
}

/** Delivery log entries inside a workflow's transaction; the workflow holds their endpoint's row (PostgresWebhookTx). */
export class PostgresDeliveryTx implements DeliveryTx {
  readonly #query: Query;

  constructor(query: Query) {
    this.#query = query;
  }

  async queue(events: readonly RecordedEvent[], at: Date): Promise<void> {
    await this.#query(QUEUE, [events.map((e) => e.sequence), events.map((e) => e.type), at.toISOString()]);
  }

  async get(webhookId: number, id: number): Promise<Delivery | undefined> {
    const [row] = await this.#query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id = $2`, [webhookId, id]);
    return row && toDelivery(row);
  }

  async pending(webhookId: number, eventSequence: number): Promise<PendingAttempt | undefined> {
    const [row] = await this.#query<DeliveryRow & { lease_until: string | null }>(
      `SELECT ${DELIVERY_COLUMNS}, lease_until FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2 AND status = 'pending'`,
      [webhookId, eventSequence],
    );
    return row && { delivery: toDelivery(row), leaseUntil: row.lease_until };
  }

  async dueAt(id: number, at: Date): Promise<Delivery> {
    const sql = `UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE id = $1 RETURNING ${DELIVERY_COLUMNS}`;
    return toDelivery((await this.#query<DeliveryRow>(sql, [id, at.toISOString()]))[0]);
  }

  async lastAttempt(webhookId: number, eventSequence: number): Promise<number> {
    const sql = 'SELECT coalesce(max(attempt), 0) AS n FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2';
    return (await this.#query<{ n: number }>(sql, [webhookId, eventSequence]))[0].n;
  }

  async insertAttempt(webhookId: number, eventSequence: number, attempt: number, due: Date, at: Date): Promise<Delivery> {
    const [row] = await this.#query<DeliveryRow>(
      `INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at)
       VALUES ($1, 'attempt', $2, $3, 'pending', $4, $5) RETURNING ${DELIVERY_COLUMNS}`,
      [webhookId, eventSequence, attempt, due.toISOString(), at.toISOString()],
    );
    return toDelivery(row);
  }

  async failPending(webhookId: number, error: string): Promise<void> {
    await this.#query(
      `UPDATE webhook_deliveries SET status = 'failed', error = $2, next_attempt_at = NULL, lease_until = NULL, lease_token = NULL WHERE webhook_id = $1 AND status = 'pending'`,
      [webhookId, error],
    );
  }

  async logDisabled(webhookId: number, error: string, at: Date): Promise<void> {
    await this.#query(`INSERT INTO webhook_deliveries (webhook_id, type, status, error, created_at) VALUES ($1, 'webhook.disabled', 'failed', $2, $3)`, [
      webhookId,
      error,
      at.toISOString(),
    ]);
  }

  async inFlight(webhookId: number, now: Date): Promise<number> {
    const sql = `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending' AND lease_until > $2`;
    return (await this.#query<{ n: number }>(sql, [webhookId, now.toISOString()]))[0].n;
  }

  async lease(webhookId: number, lease: Lease, limit: number): Promise<number> {
    const leased = await this.#query(
      `UPDATE webhook_deliveries SET lease_until = $3, lease_token = $4 WHERE id IN (
         SELECT d.id FROM webhook_deliveries d WHERE d.webhook_id = $2 AND ${DUE} ORDER BY d.event_id, d.id LIMIT $5 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [lease.now.toISOString(), webhookId, lease.until.toISOString(), lease.token, limit],
    );
    return leased.length;
  }

  async leased(token: string, now: Date): Promise<ClaimedAttempt[]> {
    const rows = await this.#query<ClaimRow>(
      `SELECT ${CLAIM_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN events e ON e.id = d.event_id
       WHERE d.lease_token = $1 AND d.status = 'pending' ORDER BY d.webhook_id, d.event_id`,
      [token],
    );
    return rows.map((r) => toClaimed(r, now));
  }

  async record(r: AttemptRecord): Promise<boolean> {
    const recorded = await this.#query(
      `UPDATE webhook_deliveries SET status = $3, http_status = $4, duration_ms = $5, error = $6, attempted_at = $7, next_attempt_at = $8,
         lease_until = NULL, lease_token = NULL
       WHERE id = $1 AND lease_token = $2 AND status = 'pending' RETURNING 1`,
      [r.deliveryId, r.token, r.status, r.httpStatus, r.durationMs, r.error, r.attemptedAt.toISOString(), r.nextAttemptAt?.toISOString() ?? null],
    );
    return recorded.length === 1;
  }
}
