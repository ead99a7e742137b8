import type { Delivery, Webhook } from '../../webhooks/webhook.schemas.ts';
import {
  CLAIM_COLUMNS,
  DELIVERY_COLUMNS,
  eventList,
  toClaimed,
  toDelivery,
  toWebhook,
  WEBHOOK_COLUMNS,
  type ClaimRow,
  type DeliveryRow,
  type WebhookRow,
} from '../rows.ts';
import { deliveryNotFound, disabledBecause, ENDPOINT_DISABLED, eventExpired, notAnAttempt, webhookDisabled, webhookNotFound } from '../rules.ts';
import type { AttemptResult, ClaimedAttempt, ClaimRequest, WebhookChange, WebhookCreate, WebhookRepository } from '../storage.ts';
import type { PgDb, Query } from './postgres.db.ts';

// Due: pending, not leased (or the lease ran out: its holder died), and either a first attempt
// (always at once, so first attempts go out in event-id order whatever the clocks say) or a
// retry whose time has come. $1 is the claim's "now".
const DUE = `d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= $1) AND (d.attempt = 1 OR d.next_attempt_at <= $1)`;

/**
 * Webhook endpoints and their delivery log.
 *
 * Locking: whoever changes an endpoint's deliveries locks the endpoint's row first
 * (FOR NO KEY UPDATE), then delivery rows — claims, results, retries, disabling — so they cannot
 * deadlock. Claims skip endpoints another instance is claiming for (SKIP LOCKED), and holding the
 * endpoint's row while counting its attempts in flight makes the per-endpoint limit and the
 * event-id order hold across instances. Writers recording events only insert deliveries, which
 * takes KEY SHARE on the endpoint's row: it never waits for those locks.
 */
export class PostgresWebhooks implements WebhookRepository {
  readonly #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  async create(input: WebhookCreate, now: Date): Promise<Webhook> {
    const [row] = await this.#db.query<WebhookRow>(
      `INSERT INTO webhooks (url, events, description, enabled, secret, created_at, updated_at) VALUES ($1, $2, $3, true, $4, $5, $5) RETURNING ${WEBHOOK_COLUMNS}`,
      [input.url, eventList(input.events), input.description, input.secret, now.toISOString()],
    );
    return toWebhook(row);
  }

  async get(id: number): Promise<Webhook | undefined> {
    const [row] = await this.#db.query<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1`, [id]);
    return row && toWebhook(row);
  }

  async list(q: { limit: number; afterId: number }): Promise<Webhook[]> {
    return (await this.#db.query<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id > $1 ORDER BY id LIMIT $2`, [q.afterId, q.limit])).map(
      toWebhook,
    );
  }

  update(id: number, change: WebhookChange, now: Date): Promise<Webhook | undefined> {
    return this.#db.transaction(async (query) => {
      const [row] = await query<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 FOR NO KEY UPDATE`, [id]);
      if (!row) return undefined;
      const current = toWebhook(row);
      const enabled = change.enabled ?? current.enabled;
      // Disabling drops what was still due; enabling again starts afresh, with new events only.
      if (enabled !== current.enabled) await failPending(query, id);
      const [updated] = await query<WebhookRow>(
        `UPDATE webhooks SET url = $2, events = $3, description = $4, enabled = $5, updated_at = $6,
           failing_since = CASE WHEN $5 AND NOT enabled THEN NULL ELSE failing_since END
         WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
        [
          id,
          change.url ?? current.url,
          eventList(change.events === undefined ? current.events : change.events),
          change.description === undefined ? current.description : change.description,
          enabled,
          now.toISOString(),
        ],
      );
      return toWebhook(updated);
    });
  }

  async delete(id: number): Promise<boolean> {
    return (await this.#db.query('DELETE FROM webhooks WHERE id = $1 RETURNING 1', [id])).length === 1;
  }

  async rotateSecret(id: number, secret: string, previousUntil: Date, now: Date): Promise<Webhook | undefined> {
    const [row] = await this.#db.query<WebhookRow>(
      `UPDATE webhooks SET previous_secret = secret, previous_secret_until = $2, secret = $3, updated_at = $4 WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
      [id, previousUntil.toISOString(), secret, now.toISOString()],
    );
    return row && toWebhook(row);
  }

  async deliveries(webhookId: number, q: { limit: number; beforeId: number }): Promise<Delivery[]> {
    const rows = await this.#db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`,
      [webhookId, q.beforeId, q.limit],
    );
    return rows.map(toDelivery);
  }

  retry(webhookId: number, deliveryId: number, now: Date): Promise<Delivery> {
    return this.#db.transaction(async (query) => {
      const [endpoint] = await query<{ enabled: boolean }>('SELECT enabled FROM webhooks WHERE id = $1 FOR NO KEY UPDATE', [webhookId]);
      if (!endpoint) throw webhookNotFound(webhookId);
      const [entry] = await query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id = $2`, [webhookId, deliveryId]);
      if (!entry) throw deliveryNotFound(webhookId, deliveryId);
      if (entry.event_id === null) throw notAnAttempt(webhookId, deliveryId);
      if (!endpoint.enabled) throw webhookDisabled(webhookId);
      if ((await query('SELECT 1 FROM events WHERE id = $1', [entry.event_id])).length === 0) throw eventExpired(entry.event_id);
      const at = now.toISOString();
      const [pending] = await query<DeliveryRow & { leased: boolean }>(
        `SELECT ${DELIVERY_COLUMNS}, coalesce(lease_until > $3, false) AS leased FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2 AND status = 'pending'`,
        [webhookId, entry.event_id, at],
      );
      if (pending) {
        // In flight already: that attempt is the retry.
        if (pending.leased) return toDelivery(pending);
        const [due] = await query<DeliveryRow>(`UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE id = $1 RETURNING ${DELIVERY_COLUMNS}`, [
          pending.id,
          at,
        ]);
        return toDelivery(due);
      }
      const [row] = await query<DeliveryRow>(
        `INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at)
         SELECT $1, 'attempt', $2, max(attempt) + 1, 'pending', $3, $3 FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2
         RETURNING ${DELIVERY_COLUMNS}`,
        [webhookId, entry.event_id, at],
      );
      return toDelivery(row);
    });
  }

  async claim(q: ClaimRequest): Promise<ClaimedAttempt[]> {
    // An idle dispatcher asks often: one plain read answers it, without a transaction or locks.
    if ((await this.#db.query(`SELECT 1 FROM webhook_deliveries d WHERE ${DUE} LIMIT 1`, [q.now.toISOString()])).length === 0) return [];
    return this.#db.transaction(async (query) => {
      const now = q.now.toISOString();
      const endpoints = await query<{ id: number }>(
        `SELECT w.id FROM webhooks w
         WHERE w.enabled
           AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND ${DUE})
           AND (SELECT count(*) FROM webhook_deliveries x WHERE x.webhook_id = w.id AND x.status = 'pending' AND x.lease_until > $1) < $2
         ORDER BY w.claimed_at NULLS FIRST, w.id LIMIT $3
         FOR NO KEY UPDATE OF w SKIP LOCKED`,
        [now, q.perEndpoint, q.max],
      );
      let room = q.max;
      let claimed = 0;
      for (const { id } of endpoints) {
        if (room === 0) break;
        // Counted again under the endpoint's lock: every claimer holds it while it counts and leases.
        const [{ n }] = await query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending' AND lease_until > $2`,
          [id, now],
        );
        const leased = await query(
          `UPDATE webhook_deliveries SET lease_until = $3, lease_token = $4 WHERE id IN (
             SELECT d.id FROM webhook_deliveries d WHERE d.webhook_id = $2 AND ${DUE} ORDER BY d.event_id, d.id LIMIT $5 FOR UPDATE SKIP LOCKED)
           RETURNING id`,
          [now, id, q.leaseUntil.toISOString(), q.token, Math.max(0, Math.min(q.perEndpoint - n, room))],
        );
        await query('UPDATE webhooks SET claimed_at = $2 WHERE id = $1', [id, now]);
        room -= leased.length;
        claimed += leased.length;
      }
      if (claimed === 0) return [];
      const rows = await query<ClaimRow>(
        `SELECT ${CLAIM_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN events e ON e.id = d.event_id
         WHERE d.lease_token = $1 AND d.status = 'pending' ORDER BY d.webhook_id, d.event_id`,
        [q.token],
      );
      return rows.map((r) => toClaimed(r, q.now));
    });
  }

  finish(r: AttemptResult): Promise<{ recorded: boolean; disabled: boolean }> {
    const { attempt: a } = r;
    return this.#db.transaction(async (query) => {
      const [endpoint] = await query<{ enabled: boolean }>('SELECT enabled FROM webhooks WHERE id = $1 FOR NO KEY UPDATE', [a.webhookId]);
      if (!endpoint) return { recorded: false, disabled: false };
      const at = r.attemptedAt.toISOString();
      const recorded = await query(
        `UPDATE webhook_deliveries SET status = $3, http_status = $4, duration_ms = $5, error = $6, attempted_at = $7, next_attempt_at = $8,
           lease_until = NULL, lease_token = NULL
         WHERE id = $1 AND lease_token = $2 AND status = 'pending' RETURNING 1`,
        [a.deliveryId, r.token, r.succeeded ? 'succeeded' : 'failed', r.httpStatus, r.durationMs, r.error, at, r.retryAt?.toISOString() ?? null],
      );
      if (recorded.length === 0) return { recorded: false, disabled: false };
      if (r.succeeded) {
        await query('UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [a.webhookId]);
        return { recorded: true, disabled: false };
      }
      const [{ failing_since: since }] = await query<{ failing_since: string }>(
        'UPDATE webhooks SET failing_since = coalesce(failing_since, $2) WHERE id = $1 RETURNING failing_since',
        [a.webhookId, at],
      );
      const disable = endpoint.enabled && since <= r.disableIfFailingSince.toISOString();
      if (disable) {
        await query('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE id = $1', [a.deliveryId]);
        await failPending(query, a.webhookId);
        await query('UPDATE webhooks SET enabled = false, updated_at = $2 WHERE id = $1', [a.webhookId, at]);
        await query(`INSERT INTO webhook_deliveries (webhook_id, type, status, error, created_at) VALUES ($1, 'webhook.disabled', 'failed', $2, $3)`, [
          a.webhookId,
          disabledBecause(since),
          at,
        ]);
      } else if (r.retryAt) {
        await query(
          `INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at) VALUES ($1, 'attempt', $2, $3, 'pending', $4, $5)`,
          [a.webhookId, a.eventId, a.attempt + 1, r.retryAt.toISOString(), at],
        );
      }
      return { recorded: true, disabled: disable };
    });
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

/** Marks the endpoint's pending attempts failed (it is being disabled, or enabled afresh). The caller holds the endpoint's row. */
async function failPending(query: Query, webhookId: number): Promise<void> {
  await query(
    `UPDATE webhook_deliveries SET status = 'failed', error = $2, next_attempt_at = NULL, lease_until = NULL, lease_token = NULL WHERE webhook_id = $1 AND status = 'pending'`,
    [webhookId, ENDPOINT_DISABLED],
  );
}
