import type { DatabaseSync, StatementSync } from 'node:sqlite';
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
import type { GroupCommit } from './sqlite.group-commit.ts';

// An attempt is due when it is pending, not leased (or its lease ran out), and either a first
// attempt (always at once, so first attempts go out in event-id order whatever the clocks say)
// or a retry whose time has come.
const DUE = `d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= :now) AND (d.attempt = 1 OR d.next_attempt_at <= :now)`;

/**
 * Webhook endpoints and their delivery log. Every write runs in the shared GroupCommit (one
 * transaction, one fsync with the writes around it); SQLite has one writer at a time, so a claim
 * sees every other claim of every process on the file.
 */
export class SqliteWebhooks implements WebhookRepository {
  readonly #writes: GroupCommit;
  readonly #insert: StatementSync;
  readonly #get: StatementSync;
  readonly #list: StatementSync;
  readonly #update: StatementSync;
  readonly #delete: StatementSync;
  readonly #rotate: StatementSync;
  readonly #log: StatementSync;
  readonly #entry: StatementSync;
  readonly #lock: StatementSync;
  readonly #pendingOf: StatementSync;
  readonly #dueNow: StatementSync;
  readonly #lastAttempt: StatementSync;
  readonly #insertAttempt: StatementSync;
  readonly #eventExists: StatementSync;
  readonly #failPending: StatementSync;
  readonly #insertDisabled: StatementSync;
  readonly #setEnabled: StatementSync;
  readonly #anyDue: StatementSync;
  readonly #candidates: StatementSync;
  readonly #inflight: StatementSync;
  readonly #due: StatementSync;
  readonly #lease: StatementSync;
  readonly #touch: StatementSync;
  readonly #claimed: StatementSync;
  readonly #record: StatementSync;
  readonly #succeeded: StatementSync;
  readonly #failing: StatementSync;
  readonly #noRetry: StatementSync;
  readonly #oldest: StatementSync;
  readonly #purge: StatementSync;

  constructor(db: DatabaseSync, writes: GroupCommit) {
    this.#writes = writes;
    this.#insert = db.prepare(
      `INSERT INTO webhooks (url, events, description, enabled, secret, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?, ?) RETURNING ${WEBHOOK_COLUMNS}`,
    );
    this.#get = db.prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`);
    this.#list = db.prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id > ? ORDER BY id LIMIT ?`);
    this.#update = db.prepare(
      `UPDATE webhooks SET url = :url, events = :events, description = :description, enabled = :enabled, updated_at = :now,
         failing_since = CASE WHEN :enabled = 1 AND enabled = 0 THEN NULL ELSE failing_since END
       WHERE id = :id RETURNING ${WEBHOOK_COLUMNS}`,
    );
    this.#delete = db.prepare('DELETE FROM webhooks WHERE id = ?');
    this.#rotate = db.prepare(
      `UPDATE webhooks SET previous_secret = secret, previous_secret_until = ?, secret = ?, updated_at = ? WHERE id = ? RETURNING ${WEBHOOK_COLUMNS}`,
    );
    this.#log = db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id < ? ORDER BY id DESC LIMIT ?`);
    this.#entry = db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id = ?`);
    this.#lock = db.prepare('SELECT enabled FROM webhooks WHERE id = ?');
    this.#pendingOf = db.prepare(
      `SELECT ${DELIVERY_COLUMNS}, lease_until FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ? AND status = 'pending'`,
    );
    this.#dueNow = db.prepare(`UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? RETURNING ${DELIVERY_COLUMNS}`);
    this.#lastAttempt = db.prepare('SELECT max(attempt) AS n FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ?');
    this.#insertAttempt = db.prepare(
      `INSERT INTO webhook_deliveries (webhook_id, type, event_id, attempt, status, next_attempt_at, created_at) VALUES (?, 'attempt', ?, ?, 'pending', ?, ?) RETURNING ${DELIVERY_COLUMNS}`,
    );
    this.#eventExists = db.prepare('SELECT 1 FROM events WHERE id = ?');
    this.#failPending = db.prepare(
      `UPDATE webhook_deliveries SET status = 'failed', error = ?, next_attempt_at = NULL, lease_until = NULL, lease_token = NULL WHERE webhook_id = ? AND status = 'pending'`,
    );
    this.#insertDisabled = db.prepare(
      `INSERT INTO webhook_deliveries (webhook_id, type, status, error, created_at) VALUES (?, 'webhook.disabled', 'failed', ?, ?)`,
    );
    this.#setEnabled = db.prepare('UPDATE webhooks SET enabled = 0, updated_at = ? WHERE id = ?');
    this.#anyDue = db.prepare(`SELECT 1 FROM webhook_deliveries d WHERE ${DUE} LIMIT 1`);
    this.#candidates = db.prepare(
      `SELECT w.id FROM webhooks w
       WHERE w.enabled = 1
         AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND ${DUE})
         AND (SELECT count(*) FROM webhook_deliveries x WHERE x.webhook_id = w.id AND x.status = 'pending' AND x.lease_until > :now) < :per
       ORDER BY w.claimed_at NULLS FIRST, w.id LIMIT :max`,
    );
    this.#inflight = db.prepare(`SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' AND lease_until > ?`);
    this.#due = db.prepare(`SELECT d.id FROM webhook_deliveries d WHERE d.webhook_id = :webhook AND ${DUE} ORDER BY d.event_id, d.id LIMIT :limit`);
    this.#lease = db.prepare('UPDATE webhook_deliveries SET lease_until = ?, lease_token = ? WHERE id = ?');
    this.#touch = db.prepare('UPDATE webhooks SET claimed_at = ? WHERE id = ?');
    this.#claimed = db.prepare(
      `SELECT ${CLAIM_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN events e ON e.id = d.event_id
       WHERE d.lease_token = ? AND d.status = 'pending' ORDER BY d.webhook_id, d.event_id`,
    );
    this.#record = db.prepare(
      `UPDATE webhook_deliveries SET status = :status, http_status = :http, duration_ms = :ms, error = :error, attempted_at = :at, next_attempt_at = :next,
         lease_until = NULL, lease_token = NULL
       WHERE id = :id AND lease_token = :token AND status = 'pending'`,
    );
    this.#succeeded = db.prepare('UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL');
    this.#failing = db.prepare('UPDATE webhooks SET failing_since = coalesce(failing_since, ?) WHERE id = ? RETURNING failing_since, enabled');
    this.#noRetry = db.prepare('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE id = ?');
    this.#oldest = db.prepare(
      `SELECT e.created_at FROM events e WHERE e.id = (
         SELECT min(d.event_id) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND w.enabled = 1)`,
    );
    this.#purge = db.prepare(`DELETE FROM webhook_deliveries WHERE created_at < ? AND status <> 'pending'`);
  }

  create(input: WebhookCreate, now: Date): Promise<Webhook> {
    const at = now.toISOString();
    return this.#writes.run(() =>
      toWebhook(this.#insert.get(input.url, eventList(input.events), input.description, input.secret, at, at) as unknown as WebhookRow),
    );
  }

  async get(id: number): Promise<Webhook | undefined> {
    const row = this.#get.get(id) as WebhookRow | undefined;
    return row && toWebhook(row);
  }

  async list(q: { limit: number; afterId: number }): Promise<Webhook[]> {
    return (this.#list.all(q.afterId, q.limit) as unknown as WebhookRow[]).map(toWebhook);
  }

  update(id: number, change: WebhookChange, now: Date): Promise<Webhook | undefined> {
    return this.#writes.run(() => {
      const row = this.#get.get(id) as WebhookRow | undefined;
      if (!row) return undefined;
      const current = toWebhook(row);
      const enabled = change.enabled ?? current.enabled;
      // Disabling drops what was still due; enabling again starts afresh, with new events only.
      if (enabled !== current.enabled) this.#failPending.run(ENDPOINT_DISABLED, id);
      const updated = this.#update.get({
        id,
        url: change.url ?? current.url,
        events: eventList(change.events === undefined ? current.events : change.events),
        description: change.description === undefined ? current.description : change.description,
        enabled: enabled ? 1 : 0,
        now: now.toISOString(),
      }) as unknown as WebhookRow;
      return toWebhook(updated);
    });
  }

  delete(id: number): Promise<boolean> {
    return this.#writes.run(() => Number(this.#delete.run(id).changes) === 1);
  }

  rotateSecret(id: number, secret: string, previousUntil: Date, now: Date): Promise<Webhook | undefined> {
    return this.#writes.run(() => {
      const row = this.#rotate.get(previousUntil.toISOString(), secret, now.toISOString(), id) as WebhookRow | undefined;
      return row && toWebhook(row);
    });
  }

  async deliveries(webhookId: number, q: { limit: number; beforeId: number }): Promise<Delivery[]> {
    return (this.#log.all(webhookId, q.beforeId, q.limit) as unknown as DeliveryRow[]).map(toDelivery);
  }

  retry(webhookId: number, deliveryId: number, now: Date): Promise<Delivery> {
    return this.#writes.run(() => {
      const endpoint = this.#lock.get(webhookId) as { enabled: number } | undefined;
      if (!endpoint) throw webhookNotFound(webhookId);
      const entry = this.#entry.get(webhookId, deliveryId) as DeliveryRow | undefined;
      if (!entry) throw deliveryNotFound(webhookId, deliveryId);
      if (entry.event_id === null) throw notAnAttempt(webhookId, deliveryId);
      if (!endpoint.enabled) throw webhookDisabled(webhookId);
      if (!this.#eventExists.get(entry.event_id)) throw eventExpired(entry.event_id);
      const at = now.toISOString();
      const pending = this.#pendingOf.get(webhookId, entry.event_id) as (DeliveryRow & { lease_until: string | null }) | undefined;
      if (pending) {
        // In flight already: that attempt is the retry.
        if (pending.lease_until !== null && pending.lease_until > at) return toDelivery(pending);
        return toDelivery(this.#dueNow.get(at, pending.id) as unknown as DeliveryRow);
      }
      const { n } = this.#lastAttempt.get(webhookId, entry.event_id) as { n: number };
      return toDelivery(this.#insertAttempt.get(webhookId, entry.event_id, n + 1, at, at) as unknown as DeliveryRow);
    });
  }

  async claim(q: ClaimRequest): Promise<ClaimedAttempt[]> {
    // An idle dispatcher asks often: a plain read answers it without taking the write lock.
    if (!this.#anyDue.get({ now: q.now.toISOString() })) return [];
    return this.#writes.run(() => {
      const now = q.now.toISOString();
      const until = q.leaseUntil.toISOString();
      let room = q.max;
      let claimed = 0;
      for (const { id } of this.#candidates.all({ now, per: q.perEndpoint, max: q.max }) as { id: number }[]) {
        if (room === 0) break;
        const { n } = this.#inflight.get(id, now) as { n: number };
        const due = this.#due.all({ webhook: id, now, limit: Math.min(q.perEndpoint - n, room) }) as { id: number }[];
        for (const d of due) this.#lease.run(until, q.token, d.id);
        this.#touch.run(now, id);
        room -= due.length;
        claimed += due.length;
      }
      if (claimed === 0) return [];
      return (this.#claimed.all(q.token) as unknown as ClaimRow[]).map((r) => toClaimed(r, q.now));
    });
  }

  finish(r: AttemptResult): Promise<{ recorded: boolean; disabled: boolean }> {
    return this.#writes.run(() => {
      const { attempt: a } = r;
      const at = r.attemptedAt.toISOString();
      const recorded = this.#record.run({
        id: a.deliveryId,
        token: r.token,
        status: r.succeeded ? 'succeeded' : 'failed',
        http: r.httpStatus,
        ms: r.durationMs,
        error: r.error,
        at,
        next: r.retryAt?.toISOString() ?? null,
      }).changes;
      if (Number(recorded) !== 1) return { recorded: false, disabled: false };
      if (r.succeeded) {
        this.#succeeded.run(a.webhookId);
        return { recorded: true, disabled: false };
      }
      const endpoint = this.#failing.get(at, a.webhookId) as { failing_since: string; enabled: number };
      const disable = endpoint.enabled === 1 && endpoint.failing_since <= r.disableIfFailingSince.toISOString();
      if (disable) {
        this.#noRetry.run(a.deliveryId);
        this.#failPending.run(ENDPOINT_DISABLED, a.webhookId);
        this.#setEnabled.run(at, a.webhookId);
        this.#insertDisabled.run(a.webhookId, disabledBecause(endpoint.failing_since), at);
      } else if (r.retryAt) {
        this.#insertAttempt.run(a.webhookId, a.eventId, a.attempt + 1, r.retryAt.toISOString(), at);
      }
      return { recorded: true, disabled: disable };
    });
  }

  async oldestPending(): Promise<string | undefined> {
    return (this.#oldest.get() as { created_at: string } | undefined)?.created_at;
  }

  purge(before: Date): Promise<number> {
    return this.#writes.run(() => Number(this.#purge.run(before.toISOString()).changes));
  }
}
