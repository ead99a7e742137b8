import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { WebhookSettings } from '../config.ts';
import { eventId, serializeEvent } from '../events/event.schemas.ts';
import type { Storage } from '../storage/storage.ts';
import type { Webhook } from './webhook.schemas.ts';
import { endpointReader, refusal, type EndpointReader } from './webhook.access.ts';
import { claimAttempts, EVENT_PURGED, finishAttempt, OWNER_GONE, type ClaimedAttempt } from './webhook.deliveries.ts';
import type { SecretBox } from './webhook.secret-box.ts';
import { retryAfter } from './webhook.retry-after.ts';
import { USER_AGENT, type Sender, type SendResult } from './webhook.sender.ts';
import { signatureHeader } from './webhook.signature.ts';

/** How an attempt ended, as counted in petstore_webhook_delivery_attempts_total. */
export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed';

export interface DeliveryMetrics {
  attempted(outcome: AttemptOutcome): void;
  inFlight(count: number): void;
}

interface Log {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface DispatcherOptions {
  readonly storage: Storage;
  readonly sender: Sender;
  readonly box: SecretBox;
  readonly clock: Clock;
  readonly settings: WebhookSettings;
  readonly log: Log;
  readonly metrics: DeliveryMetrics;
  /** How often an idle dispatcher looks for due attempts (default 250 ms). */
  readonly pollMs?: number;
  /** Jitter source, [0, 1). */
  readonly random?: () => number;
}

/** Beyond WEBHOOK_TIMEOUT_MS, what a lease leaves for recording the result before another instance may take the attempt over. */
const LEASE_MARGIN_MS = 5_000;
const JITTER = 0.1;

/**
 * When the attempt after attempt number `attempt` (1-based) is due, or null when the schedule is
 * exhausted: the schedule's next delay, ±10 % so that the retries of many events spread out. When
 * the receiver asked for a later time (`asked`: its Retry-After on a 429 or 503), that time, up to
 * the schedule's longest delay after the failure: a receiver may slow its retries down, never
 * speed them up, nor park them longer than the schedule ever waits (docs/events.md, "Retries").
 */
export function nextAttemptAt(schedule: readonly number[], attempt: number, from: Date, random: () => number, asked: Date | null = null): Date | null {
  if (attempt >= schedule.length) return null;
  const delay = schedule[attempt] * (1 - JITTER + 2 * JITTER * random());
  const scheduled = from.getTime() + Math.round(delay);
  if (asked === null) return new Date(scheduled);
  return new Date(Math.max(scheduled, Math.min(asked.getTime(), from.getTime() + Math.max(...schedule))));
}

/** A function of one argument whose answers are kept: the reads of one claim, each made once. */
function memo<K, V>(read: (key: K) => Promise<V>): (key: K) => Promise<V> {
  const seen = new Map<K, Promise<V>>();
  return (key) => {
    let value = seen.get(key);
    if (value === undefined) {
      value = read(key);
      seen.set(key, value);
    }
    return value;
  };
}

/** What is decided before an attempt is made: its owner key is gone, or why it may not be sent (null: it may). */
interface SendCheck {
  readonly ownerGone: boolean;
  readonly refused: string | null;
}

/**
 * Whether the attempt may be made, asked when it is about to be (webhook.access.ts): the key that
 * owned the endpoint when it was claimed must stand, and the endpoint as it is now — its owner key,
 * its subscription — must be allowed the event.
 */
async function sendCheck(
  a: ClaimedAttempt,
  readers: (keyId: number | null) => Promise<EndpointReader>,
  endpoints: (id: number) => Promise<Webhook | undefined>,
): Promise<SendCheck> {
  const claimedOwner = await readers(a.keyId);
  if (!claimedOwner.stands) return { ownerGone: true, refused: null };
  const webhook = await endpoints(a.webhookId);
  // A purged event fails as it did; a deleted endpoint's result is not recorded.
  if (a.event === undefined || webhook === undefined) return { ownerGone: false, refused: null };
  const owner = webhook.keyId === a.keyId ? claimedOwner : await readers(webhook.keyId);
  return { ownerGone: false, refused: refusal(webhook, owner.scopes, a.event.type) };
}

/**
 * Delivers webhooks: claims due attempts from the database (any instance may; each attempt goes to
 * one, under a lease), POSTs them signed, and records each outcome with its retry in one
 * transaction. At most WEBHOOK_CONCURRENCY attempts are in flight per instance, at most
 * WEBHOOK_ENDPOINT_CONCURRENCY per endpoint and WEBHOOK_HOST_CONCURRENCY per destination host
 * across all instances (the claim enforces them), so a slow or dead endpoint, or a host with many
 * endpoints, holds only its own share. Claims take the least recently served endpoints first and
 * each endpoint's attempts in event-id order. An endpoint whose owner key was revoked or expired
 * is sent nothing more: its next attempt disables it.
 */
export class WebhookDispatcher {
  readonly #o: DispatcherOptions;
  readonly #pollMs: number;
  readonly #random: () => number;
  readonly #inFlight = new Set<Promise<void>>();
  #running = false;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = 0;
  #tick: Promise<void> | undefined;
  #again = false;

  constructor(options: DispatcherOptions) {
    this.#o = options;
    this.#pollMs = options.pollMs ?? 250;
    this.#random = options.random ?? Math.random;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /** Stops claiming and waits for the attempts in flight to be made and recorded (each is bounded by WEBHOOK_TIMEOUT_MS). */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#tick;
    await Promise.allSettled([...this.#inFlight]);
    await this.#o.sender.close();
  }

  #schedule(ms: number): void {
    if (!this.#running) return;
    if (this.#tick) {
      if (ms === 0) this.#again = true;
      return;
    }
    const at = Date.now() + ms;
    if (this.#timer && this.#timerAt <= at) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#tick = this.#claim().finally(() => {
        this.#tick = undefined;
        const again = this.#again;
        this.#again = false;
        this.#schedule(again ? 0 : this.#pollMs);
      });
    }, ms);
  }

  async #claim(): Promise<void> {
    const { storage, clock, settings, log } = this.#o;
    const room = settings.concurrency - this.#inFlight.size;
    if (room <= 0) return;
    const now = clock.now();
    const token = randomUUID();
    let claimed: ClaimedAttempt[];
    try {
      claimed = await claimAttempts(storage, {
        now,
        leaseUntil: new Date(now.getTime() + settings.timeoutMs + LEASE_MARGIN_MS),
        token,
        max: room,
        perEndpoint: settings.endpointConcurrency,
        perHost: settings.hostConcurrency,
      });
    } catch (err) {
      log.warn({ err }, 'claiming webhook deliveries failed; retrying shortly');
      return;
    }
    // Each owner key and each endpoint as they stand now, read once per claim.
    const readers = memo((keyId: number | null) => endpointReader(storage, keyId, now));
    const endpoints = memo((id: number) => storage.webhooks.get(id));
    for (const attempt of claimed) {
      const run = this.#attempt(attempt, token, sendCheck(attempt, readers, endpoints)).finally(() => {
        this.#inFlight.delete(run);
        this.#o.metrics.inFlight(this.#inFlight.size);
        this.#schedule(0);
      });
      this.#inFlight.add(run);
    }
    this.#o.metrics.inFlight(this.#inFlight.size);
    // A full claim means more may be due: look again at once.
    if (claimed.length === room) this.#again = true;
  }

  async #attempt(a: ClaimedAttempt, token: string, checked: Promise<SendCheck>): Promise<void> {
    const { storage, clock, settings, log, metrics } = this.#o;
    // The key's revocation is not this attempt's failure to report, but the end of the endpoint.
    // A check that could not be made sends nothing: the attempt fails and is retried.
    const { ownerGone, refused } = await checked.catch(() => ({ ownerGone: false, refused: undefined }));
    const attemptedAt = clock.now();
    const started = performance.now();
    let result: SendResult;
    if (ownerGone) result = { status: null, error: OWNER_GONE };
    else if (refused === undefined) result = { status: null, error: 'not sent: reading the endpoint and its owner key failed' };
    else if (refused !== null) result = { status: null, error: `not sent: ${refused}` };
    else result = await this.#send(a, attemptedAt);
    const skipped = typeof refused === 'string';
    const durationMs = Math.round(performance.now() - started);
    const succeeded = result.error === null;
    // The schedule's delays run from the failure, so a slow failure does not eat into them.
    const failedAt = clock.now();
    const asked = retryAfter(result.status, result.retryAfter, failedAt);
    const retryAt = succeeded || skipped || a.event === undefined ? null : nextAttemptAt(settings.retryScheduleMs, a.attempt, failedAt, this.#random, asked);
    let outcome: { recorded: boolean; disabled: boolean };
    try {
      outcome = await finishAttempt(storage, {
        attempt: a,
        token,
        succeeded,
        httpStatus: result.status,
        durationMs,
        error: result.error,
        attemptedAt,
        retryAt,
        disableIfFailingSince: new Date(attemptedAt.getTime() - settings.disableAfterHours * 3_600_000),
        ownerGone,
        skipped,
      });
    } catch (err) {
      // The lease runs out and another attempt follows: at least once, possibly twice.
      log.error({ err, webhookId: a.webhookId, deliveryId: a.deliveryId }, 'recording a webhook delivery attempt failed; it will be made again');
      return;
    }
    if (!outcome.recorded) return;
    if (skipped) {
      log.warn(
        { webhookId: a.webhookId, deliveryId: a.deliveryId, eventId: eventId(a.eventId), reason: refused },
        'webhook delivery not sent: the endpoint may not read this event',
      );
      metrics.attempted('failed');
      return;
    }
    metrics.attempted(succeeded ? 'succeeded' : retryAt && !outcome.disabled ? 'retrying' : 'failed');
    if (!succeeded) {
      log.warn(
        {
          webhookId: a.webhookId,
          deliveryId: a.deliveryId,
          eventId: eventId(a.eventId),
          attempt: a.attempt,
          httpStatus: result.status,
          error: result.error,
          durationMs,
          nextAttemptAt: outcome.disabled ? null : (retryAt?.toISOString() ?? null),
        },
        'webhook delivery attempt failed',
      );
    }
    if (outcome.disabled && ownerGone) {
      log.warn({ webhookId: a.webhookId, keyId: a.keyId }, 'webhook endpoint disabled: the API key that owns it is revoked or expired');
    } else if (outcome.disabled) {
      log.warn(
        { webhookId: a.webhookId, disableAfterHours: settings.disableAfterHours },
        'webhook endpoint disabled: every delivery attempt failed for WEBHOOK_DISABLE_AFTER_HOURS',
      );
    }
  }

  /** Signs and POSTs one attempt; a purged event or an unreadable current secret fails it without a request. */
  async #send(a: ClaimedAttempt, attemptedAt: Date): Promise<SendResult> {
    if (a.event === undefined) return { status: null, error: EVENT_PURGED };
    // The current secret must sign; a previous one that cannot be opened (sealed under a key no
    // longer configured: the very reason to rotate) is left out instead of failing the delivery.
    const [current, ...previous] = a.secrets.map((sealed) => this.#open(sealed));
    if (current === undefined) {
      this.#o.log.error({ webhookId: a.webhookId }, 'cannot open the signing secret of a webhook endpoint (WEBHOOK_SECRET_KEY changed?)');
      return { status: null, error: 'not sent: the signing secret cannot be opened (WEBHOOK_SECRET_KEY)' };
    }
    const body = serializeEvent(a.event);
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const signature = signatureHeader([current, ...previous.filter((p) => p !== undefined)], a.event.id, timestamp, body);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': a.event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    };
    return this.#o.sender.send(a.url, headers, body);
  }

  #open(sealed: string): string | undefined {
    try {
      return this.#o.box.open(sealed);
    } catch {
      return undefined;
    }
  }
}
